/* Interrupt and exception entry. Every vector has a 16-byte stub that
 * pushes a dummy error code where the CPU does not push one, then the
 * vector number, and jumps to the common path, which saves the general
 * registers as a `TrapFrame` and calls `trap_entry`. */

.section .text.trap, "ax"
.code64

.set vec, 0
.balign 16
.global trap_stubs
trap_stubs:
.rept 256
    .balign 16
    .if (vec == 8) || (vec == 10) || (vec == 11) || (vec == 12) || (vec == 13) || (vec == 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
    .else
        pushq $0
    .endif
    pushq $vec
    jmp trap_common
    .set vec, vec + 1
.endr

trap_common:
    /* Coming from user mode: switch to the kernel's GS base. CS is at
     * +24 (vector, error code, rip before it). */
    testb $3, 24(%rsp)
    jz 1f
    swapgs
1:
    pushq %rax
    pushq %rbx
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %rbp
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    cld
    movq %rsp, %rdi
    call trap_entry
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rbp
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rbx
    popq %rax
    testb $3, 24(%rsp)
    jz 2f
    swapgs
2:
    addq $16, %rsp
    iretq

/* User-mode entry and exit.
 *
 * SYSCALL: the CPU saved the user RIP in %rcx and RFLAGS in %r11, masked
 * RFLAGS with IA32_FMASK (interrupts off) and left %rsp alone. We switch to
 * the current task's kernel stack (per-CPU slot), build a TrapFrame like the
 * one interrupts build (vector SYSCALL_VECTOR), turn interrupts on and call
 * the kernel's system-call hook (SYSCALL_HOOK) directly. After it, SYSRET
 * is used when the frame is still a plain system call's (vector, selectors)
 * returning to an address below the last user page (SYSRET to a
 * non-canonical %rcx would fault in kernel mode with the user's stack);
 * otherwise IRETQ restores every register exactly. The offsets and limits
 * below are checked against the Rust definitions (user.rs). */

.set PERCPU_USER_RSP, 8
.set PERCPU_KERNEL_RSP, 16
.set USER_DS, 0x2b
.set USER_CS, 0x33
.set SYSCALL_VECTOR, 0x100
.set FRAME_VECTOR, 0x78
.set FRAME_RIP, 0x88
.set FRAME_CS, 0x90
.set FRAME_SS, 0xa8
.set SYSRET_RIP_LIMIT, 0x7ffffffff000

.section .text.user_entry, "ax"
.code64
.global syscall_entry
syscall_entry:
    swapgs
    movq %rsp, %gs:PERCPU_USER_RSP
    movq %gs:PERCPU_KERNEL_RSP, %rsp
    pushq $USER_DS
    pushq %gs:PERCPU_USER_RSP
    pushq %r11
    pushq $USER_CS
    pushq %rcx
    pushq $0
    pushq $SYSCALL_VECTOR
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
    xorl %ebp, %ebp
    movq %rsp, %rdi
    sti
    call *SYSCALL_HOOK(%rip)
    cmpq $SYSCALL_VECTOR, FRAME_VECTOR(%rsp)
    jne return_to_user_iret
    movabsq $SYSRET_RIP_LIMIT, %rax
    cmpq %rax, FRAME_RIP(%rsp)
    jae return_to_user_iret
    cmpq $USER_CS, FRAME_CS(%rsp)
    jne return_to_user_iret
    cmpq $USER_DS, FRAME_SS(%rsp)
    jne return_to_user_iret
    /* SYSRET: user %rcx/%r11 are clobbered by design (as on Linux). */
    cli
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
    movq 16(%rsp), %rcx       /* rip */
    movq 32(%rsp), %r11       /* rflags */
    movq 40(%rsp), %rsp       /* user rsp */
    swapgs
    sysretq

/* Returns to user mode through IRETQ from the TrapFrame at %rsp: used by
 * new tasks' first entry, and by syscalls whose frame the kernel rewrote
 * (signal delivery and return, execve). */
.global return_to_user_iret
return_to_user_iret:
    cli
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
    addq $16, %rsp
    swapgs
    iretq

/* A new user task's first instructions: the context switch "returns"
 * here with %rsp at the task's TrapFrame. */
.global task_first_user_entry
task_first_user_entry:
    call task_started
    jmp return_to_user_iret

/* A new kernel task: %r12 = function, %r13 = argument. */
.global task_first_kernel_entry
task_first_kernel_entry:
    call task_started
    movq %r13, %rdi
    call *%r12
    ud2

/* switch_stacks(save_rsp: *mut usize, next_rsp: usize): saves the
 * callee-saved registers on the current stack, stores %rsp, loads the next
 * task's %rsp and pops its registers. */
.global switch_stacks
switch_stacks:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret

/* copy_user_bytes(dst, src, len) -> bytes left uncopied (0 on success).
 * One of dst/src is a user address the caller has range-checked. The bulk
 * moves as quadwords (REP MOVSQ), the tail as bytes. A fault on either is
 * first offered to the kernel's page-fault resolver (demand paging,
 * copy-on-write); if it cannot be resolved, the trap handler resumes at
 * the matching fixup, which returns the bytes left (for the quadword part,
 * %rcx quadwords plus the tail in %rdx). SMAP is lifted only around the
 * copy. */
.global copy_user_bytes
copy_user_bytes:
    movq %rdx, %rcx
    cmpb $0, smap_enabled(%rip)
    je 1f
    stac
1:
    shrq $3, %rcx
    andl $7, %edx
.global usercopy_movsq
usercopy_movsq:
    rep movsq
    movl %edx, %ecx
.global usercopy_movs
usercopy_movs:
    rep movsb
.global usercopy_fixup
usercopy_fixup:
    cmpb $0, smap_enabled(%rip)
    je 2f
    clac
2:
    movq %rcx, %rax
    ret
.global usercopy_movsq_fixup
usercopy_movsq_fixup:
    leaq (%rdx,%rcx,8), %rcx
    jmp usercopy_fixup

/* copy_user_bytes_nofault(dst, src, len) -> bytes left uncopied: as
 * copy_user_bytes, but a fault is never resolved (no demand paging, no
 * copy-on-write): the copy stops at the first page not mapped for the
 * access, as Linux's copies with page faults disabled. For copies made
 * while a lock the fault resolver may need is held; the caller faults
 * the page in afterwards, with no lock held, and copies again. */
.global copy_user_bytes_nofault
copy_user_bytes_nofault:
    movq %rdx, %rcx
    cmpb $0, smap_enabled(%rip)
    je 1f
    stac
1:
    shrq $3, %rcx
    andl $7, %edx
.global usercopy_nf_movsq
usercopy_nf_movsq:
    rep movsq
    movl %edx, %ecx
.global usercopy_nf_movs
usercopy_nf_movs:
    rep movsb
    jmp usercopy_fixup
/* A quadword that faulted may straddle the bad page: the rest goes byte
 * by byte, so the count copied stops exactly at the first bad byte. */
.global usercopy_nf_movsq_fixup
usercopy_nf_movsq_fixup:
    leaq (%rdx,%rcx,8), %rcx
    jmp usercopy_nf_movs

/* fill_user_bytes(dst, byte, len) -> bytes left unfilled. */
.global fill_user_bytes
fill_user_bytes:
    movq %rdx, %rcx
    movl %esi, %eax
    cmpb $0, smap_enabled(%rip)
    je 3f
    stac
3:
.global userfill_stos
userfill_stos:
    rep stosb
.global userfill_fixup
userfill_fixup:
    cmpb $0, smap_enabled(%rip)
    je 4f
    clac
4:
    movq %rcx, %rax
    ret

/* cmpxchg_user_u32(addr, expected, new, old_out) -> 0, or 1 on a fault
 * that cannot be resolved. A LOCK CMPXCHG on the user word (futex
 * operations that change user memory atomically: FUTEX_WAKE_OP); the
 * value found is stored at old_out. The instruction always writes, so
 * a fault is a write fault and copy-on-write resolves it. */
.global cmpxchg_user_u32
cmpxchg_user_u32:
    movl %esi, %eax
    cmpb $0, smap_enabled(%rip)
    je 5f
    stac
5:
.global usercmpxchg_insn
usercmpxchg_insn:
    lock cmpxchgl %edx, (%rdi)
    cmpb $0, smap_enabled(%rip)
    je 6f
    clac
6:
    movl %eax, (%rcx)
    xorl %eax, %eax
    ret
.global usercmpxchg_fixup
usercmpxchg_fixup:
    cmpb $0, smap_enabled(%rip)
    je 7f
    clac
7:
    movl $1, %eax
    ret

/* FPU state to and from user memory (signal frames), as Linux does it:
 * the save and restore instructions work on the user address directly.
 *   xsave_user(area, rfbm_lo, rfbm_hi)    fxsave_user(area)
 *   xrstor_user(area, rfbm_lo, rfbm_hi)   fxrstor_user(area)
 * return 0, or 1 when the instruction faulted for good. A page fault goes
 * to the resolver first and the instruction is retried (all four can be
 * restarted); anything else (#GP for a misaligned area, an XSAVE header or
 * MXCSR value the CPU refuses) resumes at userfpu_fixup. */
.global xsave_user
xsave_user:
    movl %esi, %eax
    xorl %ecx, %ecx
    cmpb $0, smap_enabled(%rip)
    je 8f
    stac
8:
.global userxsave_insn
userxsave_insn:
    xsave64 (%rdi)
    jmp userfpu_done

.global xrstor_user
xrstor_user:
    movl %esi, %eax
    xorl %ecx, %ecx
    cmpb $0, smap_enabled(%rip)
    je 8f
    stac
8:
.global userxrstor_insn
userxrstor_insn:
    xrstor64 (%rdi)
    jmp userfpu_done

.global fxsave_user
fxsave_user:
    xorl %ecx, %ecx
    cmpb $0, smap_enabled(%rip)
    je 8f
    stac
8:
.global userfxsave_insn
userfxsave_insn:
    fxsave64 (%rdi)
    jmp userfpu_done

.global fxrstor_user
fxrstor_user:
    xorl %ecx, %ecx
    cmpb $0, smap_enabled(%rip)
    je 8f
    stac
8:
.global userfxrstor_insn
userfxrstor_insn:
    fxrstor64 (%rdi)
    jmp userfpu_done

.global userfpu_fixup
userfpu_fixup:
    movl $1, %ecx
userfpu_done:
    cmpb $0, smap_enabled(%rip)
    je 9f
    clac
9:
    movl %ecx, %eax
    ret

/* PVH entry: QEMU (or any PVH loader) jumps here in 32-bit protected mode,
 * paging off, flat segments, %ebx = physical address of hvm_start_info.
 * We build boot page tables (identity and direct map of the first 4 GiB,
 * the kernel image at -2 GiB), enter long mode and jump to Rust. */

.set KERNEL_BASE, 0xffffffff80000000
.set BOOT_STACK_SIZE, 65536

/* PT_NOTE: XEN_ELFNOTE_PHYS32_ENTRY (type 18), name "Xen". */
.section .note.pvh, "a"
.balign 4
    .long 4            /* namesz */
    .long 8            /* descsz */
    .long 18           /* type */
    .asciz "Xen"
    .balign 4
    .quad pvh_start32

.section .boot.text, "ax"
.code32
.global pvh_start32
pvh_start32:
    cli
    cld
    /* Boot timeline: TSC at the very first instruction. */
    rdtsc
    movl %eax, (boot_entry_tsc)
    movl %edx, (boot_entry_tsc + 4)
    movl %ebx, %esi              /* keep start_info across the setup */

    /* PD entries: 2048 x 2 MiB pages = 4 GiB, present|writable|huge. */
    movl $boot_pd, %edi
    xorl %ecx, %ecx
1:  movl %ecx, %eax
    shll $21, %eax
    orl $0x83, %eax
    movl %eax, (%edi,%ecx,8)
    /* high dword: bits 32.. of (ecx << 21) = ecx >> 11 */
    movl %ecx, %eax
    shrl $11, %eax
    movl %eax, 4(%edi,%ecx,8)
    incl %ecx
    cmpl $2048, %ecx
    jne 1b

    /* Low PDPT: four PDs cover 0..4 GiB. */
    movl $boot_pdpt_low, %edi
    movl $boot_pd + 0x003, 0(%edi)
    movl $boot_pd + 0x1003, 8(%edi)
    movl $boot_pd + 0x2003, 16(%edi)
    movl $boot_pd + 0x3003, 24(%edi)
    /* High PDPT: entry 510 (-2 GiB) maps the first GiB for the kernel image. */
    movl $boot_pdpt_high, %edi
    movl $boot_pd + 0x003, (510*8)(%edi)
    /* PML4: 0 = identity, 256 = direct map at 0xffff800000000000, 511 = kernel. */
    movl $boot_pml4, %edi
    movl $boot_pdpt_low + 0x003, 0(%edi)
    movl $boot_pdpt_low + 0x003, (256*8)(%edi)
    movl $boot_pdpt_high + 0x003, (511*8)(%edi)

    jmp boot_enter_long_mode32

/* Shared by the BSP and the application processors (the AP trampoline jumps
 * here once it is in 32-bit protected mode): enable PAE, load the boot page
 * tables, set EFER.LME and NXE, enable paging and write protection. %esi is
 * preserved (BSP: start_info; AP: 0). */
.global boot_enter_long_mode32
boot_enter_long_mode32:
    movl %cr4, %eax
    orl $((1 << 5) | (1 << 7)), %eax        /* PAE | PGE */
    movl %eax, %cr4
    movl $boot_pml4, %eax
    movl %eax, %cr3
    movl $0xC0000080, %ecx                  /* IA32_EFER */
    rdmsr
    orl $((1 << 8) | (1 << 11)), %eax       /* LME | NXE */
    wrmsr
    movl %cr0, %eax
    orl $((1 << 31) | (1 << 16) | 1), %eax  /* PG | WP | PE */
    movl %eax, %cr0
    lgdt (boot_gdt_ptr)
    ljmp $0x08, $boot_long_mode64

.code64
boot_long_mode64:
    xorl %eax, %eax
    movl %eax, %ds
    movl %eax, %es
    movl %eax, %ss
    movl %eax, %fs
    movl %eax, %gs
    testl %esi, %esi
    jz boot_ap64
    movabsq $boot_stack_top, %rsp
    xorl %ebp, %ebp
    movl %esi, %edi                          /* arg0: start_info paddr */
    movabsq $platform_bsp_entry, %rax
    call *%rax
2:  hlt
    jmp 2b

/* Application processors: claim an arrival slot and continue in the
 * higher half, which switches to the kernel page table and the slot's
 * stack (see ap_entry_high in boot.rs). */
boot_ap64:
    movl $1, %eax
    lock xaddl %eax, (ap_arrival_counter)
    movl %eax, %edi                          /* arg0: arrival index */
    movabsq $ap_entry_high, %rax
    jmp *%rax

.section .boot.data, "aw"
.balign 16
boot_gdt:
    .quad 0
    .quad 0x00af9a000000ffff    /* 0x08: 64-bit code */
    .quad 0x00cf92000000ffff    /* 0x10: data */
    .quad 0x00cf9a000000ffff    /* 0x18: 32-bit code (AP trampoline) */
boot_gdt_end:
.global boot_gdt_ptr
boot_gdt_ptr:
    .word boot_gdt_end - boot_gdt - 1
    .long boot_gdt
.balign 8
.global boot_entry_tsc
boot_entry_tsc:
    .quad 0
.global ap_arrival_counter
ap_arrival_counter:
    .long 0

.section .boot.bss, "aw", @nobits
.balign 4096
.global boot_pml4
boot_pml4:      .skip 4096
boot_pdpt_low:  .skip 4096
boot_pdpt_high: .skip 4096
boot_pd:        .skip 4096 * 4

.section .bss.boot_stack, "aw", @nobits
.balign 4096
.global boot_stack_guard
boot_stack_guard: .skip 4096
boot_stack:     .skip BOOT_STACK_SIZE
.global boot_stack_top
boot_stack_top:

/* AP trampoline: copied to a page below 1 MiB; the SIPI vector points at
 * it. Real mode -> protected mode -> boot_enter_long_mode32. Everything is
 * addressed relative to the copy's base, which the BSP patches into the
 * far-jump target. */
.section .rodata.ap_trampoline, "a"
.code16
.global ap_trampoline_start
ap_trampoline_start:
    cli
    cld
    xorw %ax, %ax
    movw %ax, %ds
    /* %cs = page >> 4: data below is at (cs << 4) + offset. Load the GDT
     * through a physical pointer the BSP wrote into the trampoline. */
    movw %cs, %ax
    movw %ax, %ds
    lgdtl (ap_tramp_gdt_ptr - ap_trampoline_start)
    movl %cr0, %eax
    orl $1, %eax
    movl %eax, %cr0
    ljmpl *(ap_tramp_far32 - ap_trampoline_start)
.balign 8
.global ap_tramp_far32
ap_tramp_far32:
    .long 0         /* patched: physical address of ap_trampoline32 */
    .word 0x18
.balign 8
.global ap_tramp_gdt_ptr
ap_tramp_gdt_ptr:
    .word boot_gdt_end - boot_gdt - 1
    .long boot_gdt
.code32
.global ap_trampoline32
ap_trampoline32:
    movl $0x10, %eax
    movl %eax, %ds
    movl %eax, %es
    movl %eax, %ss
    xorl %esi, %esi
    movl $boot_enter_long_mode32, %eax
    jmp *%eax
.global ap_trampoline_end
ap_trampoline_end:
.code64

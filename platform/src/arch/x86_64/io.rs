//! x86 I/O ports.

use core::arch::asm;

/// Reads a byte from an I/O port.
#[inline]
pub fn inb(port: u16) -> u8 {
    let value: u8;
    // SAFETY: the ports the platform reads (serial, PIT, CMOS, PIC) have no
    // effect on memory.
    unsafe { asm!("in al, dx", out("al") value, in("dx") port, options(nomem, nostack, preserves_flags)) };
    value
}

/// Writes a byte to an I/O port.
#[inline]
pub fn outb(port: u16, value: u8) {
    // SAFETY: only the platform calls this, for devices it owns (serial,
    // PIT, CMOS, PIC, QEMU's debug-exit); none of them does DMA.
    unsafe { asm!("out dx, al", in("dx") port, in("al") value, options(nomem, nostack, preserves_flags)) };
}

/// Writes a 32-bit value to an I/O port.
#[inline]
pub fn outl(port: u16, value: u32) {
    // SAFETY: as for `outb`.
    unsafe { asm!("out dx, eax", in("dx") port, in("eax") value, options(nomem, nostack, preserves_flags)) };
}

/// Reads a 32-bit value from an I/O port.
#[inline]
pub fn inl(port: u16) -> u32 {
    let value: u32;
    // SAFETY: the platform reads 32-bit ports only for PCI configuration
    // data (0xcfc), which has no effect on memory.
    unsafe { asm!("in eax, dx", out("eax") value, in("dx") port, options(nomem, nostack, preserves_flags)) };
    value
}

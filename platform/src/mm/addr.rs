//! Physical addresses and the direct map.

use core::fmt;

/// Size of a base page.
pub const PAGE_SIZE: usize = 4096;

/// Where all physical memory is mapped in the kernel's half: physical
/// address `p` is at virtual `DIRECT_MAP_BASE + p`.
pub const DIRECT_MAP_BASE: usize = 0xffff_8000_0000_0000;

/// Where the kernel image is linked: physical `p` of the image is at
/// `KERNEL_BASE + p`.
pub const KERNEL_BASE: usize = 0xffff_ffff_8000_0000;

/// A physical address.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(transparent)]
pub struct PhysAddr(u64);

impl PhysAddr {
    /// Wraps a raw physical address.
    pub const fn new(addr: u64) -> Self {
        Self(addr)
    }

    /// Returns the raw address.
    pub const fn as_u64(self) -> u64 {
        self.0
    }

    /// Returns the page frame number.
    pub const fn frame_number(self) -> usize {
        (self.0 >> 12) as usize
    }

    /// Returns the address of frame `frame`.
    pub const fn from_frame_number(frame: usize) -> Self {
        Self((frame as u64) << 12)
    }

    /// Returns whether the address is page aligned.
    pub const fn is_page_aligned(self) -> bool {
        self.0 % PAGE_SIZE as u64 == 0
    }

    /// Returns the kernel virtual address of this physical address in the
    /// direct map.
    pub const fn direct_map(self) -> usize {
        DIRECT_MAP_BASE + self.0 as usize
    }
}

impl fmt::Debug for PhysAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PhysAddr({:#x})", self.0)
    }
}

/// Returns the physical address of a kernel-image virtual address.
pub(crate) fn image_virt_to_phys(virt: usize) -> PhysAddr {
    debug_assert!(virt >= KERNEL_BASE);
    PhysAddr((virt - KERNEL_BASE) as u64)
}

//! The user FPU state: x87, SSE and, when the CPU has XSAVE, every user
//! state component Linux enables (AVX, AVX-512, PKRU), saved and loaded
//! eagerly at context switches in per-task areas sized at boot.
//!
//! Areas are in XSAVE's standard (uncompacted) format, the one signal
//! frames use, so a frame is a copy of the live state plus Linux's
//! software-reserved bytes; without XSAVE they are 512-byte FXSAVE images.

use alloc::alloc::{alloc_zeroed, dealloc, Layout};
use core::arch::asm;
use core::arch::x86_64::{__cpuid, __cpuid_count};
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// XSAVE state components (Linux's XFEATURE_MASK_*).
const XFEATURE_FP: u64 = 1 << 0;
const XFEATURE_SSE: u64 = 1 << 1;
const XFEATURE_YMM: u64 = 1 << 2;
/// MPX's bound registers and configuration (Linux still enables them for
/// user space where the CPU has MPX, though it no longer supports MPX).
const XFEATURE_MPX: u64 = 0b11 << 3;
/// AVX-512: opmask, ZMM_Hi256, Hi16_ZMM (enabled together or not at all).
const XFEATURE_AVX512: u64 = 0b111 << 5;
const XFEATURE_PKRU: u64 = 1 << 9;

/// Size of the legacy FXSAVE region and of the XSAVE header after it.
pub const LEGACY_SIZE: usize = 512;
const HEADER_SIZE: usize = 64;
/// Where MXCSR and MXCSR_MASK sit in the legacy region.
const MXCSR_OFFSET: usize = 24;
const MXCSR_MASK_OFFSET: usize = 28;

static USE_XSAVE: AtomicBool = AtomicBool::new(false);
static XCR0: AtomicU64 = AtomicU64::new(XFEATURE_FP | XFEATURE_SSE);
static AREA_SIZE: AtomicU32 = AtomicU32::new(LEGACY_SIZE as u32);
static MXCSR_MASK: AtomicU32 = AtomicU32::new(0xffbf);

/// Picks the enabled state components on the boot CPU (`first`) and turns
/// the FPU on for user code on this CPU: CR0.MP, CR4.OSFXSR/OSXMMEXCPT and,
/// with XSAVE, CR4.OSXSAVE and XCR0. Every CPU gets the boot CPU's XCR0.
pub(crate) fn init_cpu(first: bool) {
    let has_xsave = __cpuid(1).ecx & (1 << 26) != 0 && __cpuid(0).eax >= 0xd;
    if first && has_xsave {
        let leaf = __cpuid_count(0xd, 0);
        let supported = u64::from(leaf.eax) | (u64::from(leaf.edx) << 32);
        // What Linux gives user space by default (no supervisor states, no
        // dynamically enabled AMX tiles): x87, SSE, AVX, the MPX registers
        // if the CPU has MPX, AVX-512 if all three parts are there, PKRU if
        // the CPU has protection keys.
        let mut xcr0 = supported & (XFEATURE_FP | XFEATURE_SSE | XFEATURE_YMM);
        let (leaf7_ebx, leaf7_ecx) = if __cpuid(0).eax >= 7 {
            let leaf7 = __cpuid_count(7, 0);
            (leaf7.ebx, leaf7.ecx)
        } else {
            (0, 0)
        };
        let has_mpx = leaf7_ebx & (1 << 14) != 0;
        if has_mpx && supported & XFEATURE_MPX == XFEATURE_MPX {
            xcr0 |= XFEATURE_MPX;
        }
        if supported & XFEATURE_AVX512 == XFEATURE_AVX512 && xcr0 & XFEATURE_YMM != 0 {
            xcr0 |= XFEATURE_AVX512;
        }
        let has_pku = leaf7_ecx & (1 << 3) != 0;
        if has_pku && supported & XFEATURE_PKRU != 0 {
            xcr0 |= XFEATURE_PKRU;
        }
        XCR0.store(xcr0, Ordering::Relaxed);
        USE_XSAVE.store(true, Ordering::Relaxed);
    }
    let xsave = USE_XSAVE.load(Ordering::Relaxed);
    let xcr0 = XCR0.load(Ordering::Relaxed);
    // SAFETY: CR0.MP with EM and TS clear, and CR4.OSFXSR/OSXMMEXCPT (and
    // OSXSAVE when XSAVE exists) only let code use the FPU, SSE and the
    // XSAVE family; XCR0 holds only components CPUID reports (x87 always
    // set, AVX-512's three parts together), so XSETBV cannot fault. The
    // kernel itself is built without SSE, so nothing here clobbers state
    // it relies on.
    unsafe {
        asm!(
            "mov {t}, cr0", "and {t}, ~0xc", "or {t}, 0x2", "mov cr0, {t}",
            "mov {t}, cr4", "or {t}, 0x600", "mov cr4, {t}",
            "fninit",
            t = out(reg) _, options(nostack)
        );
        if xsave {
            asm!("mov {t}, cr4", "bts {t}, 18", "mov cr4, {t}", t = out(reg) _, options(nostack));
            asm!("xsetbv", in("ecx") 0u32, in("eax") xcr0 as u32, in("edx") (xcr0 >> 32) as u32, options(nostack));
        }
    }
    if first {
        // The standard-format size for the components now in XCR0.
        let size = if xsave { __cpuid_count(0xd, 0).ebx as usize } else { LEGACY_SIZE };
        AREA_SIZE.store(size.max(LEGACY_SIZE + HEADER_SIZE * usize::from(xsave)) as u32, Ordering::Relaxed);
        let mut probe = FxImage([0; LEGACY_SIZE]);
        // SAFETY: FXSAVE writes 512 bytes to a 16-byte aligned buffer.
        unsafe { asm!("fxsave64 [{}]", in(reg) &mut probe as *mut FxImage, options(nostack)) };
        let mask = u32::from_le_bytes(probe.0[MXCSR_MASK_OFFSET..MXCSR_MASK_OFFSET + 4].try_into().unwrap());
        // A zero mask means the CPU predates MXCSR_MASK: 0xffbf (no DAZ).
        MXCSR_MASK.store(if mask == 0 { 0xffbf } else { mask }, Ordering::Relaxed);
    }
}

#[repr(C, align(16))]
struct FxImage([u8; LEGACY_SIZE]);

/// Returns whether XSAVE manages the FPU state (else FXSAVE).
pub fn xsave_enabled() -> bool {
    USE_XSAVE.load(Ordering::Relaxed)
}

/// Returns the state components enabled for user code (XCR0; x87 and SSE
/// without XSAVE).
pub fn user_xfeatures() -> u64 {
    XCR0.load(Ordering::Relaxed)
}

/// Returns the size in bytes of a state image (the standard-format XSAVE
/// area for the enabled components, or 512 for FXSAVE).
pub fn state_size() -> usize {
    AREA_SIZE.load(Ordering::Relaxed) as usize
}

/// A 64-byte aligned, heap-allocated state image of [`state_size`] bytes.
pub struct FpuArea {
    ptr: NonNull<u8>,
}

// SAFETY: the area is plain memory owned by this value.
unsafe impl Send for FpuArea {}
// SAFETY: shared references only read it.
unsafe impl Sync for FpuArea {}

impl FpuArea {
    fn layout() -> Layout {
        Layout::from_size_align(state_size(), 64).expect("FPU area layout")
    }

    /// Returns an area holding the state a new program starts with: x87
    /// control word 0x37f, MXCSR 0x1f80 with exceptions masked, every
    /// XSAVE component in its initial configuration (XSTATE_BV zero).
    pub fn initial() -> Option<FpuArea> {
        // SAFETY: the layout has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(Self::layout()) })?;
        let mut area = FpuArea { ptr };
        let bytes = area.bytes_mut();
        bytes[0..2].copy_from_slice(&0x037fu16.to_le_bytes());
        bytes[MXCSR_OFFSET..MXCSR_OFFSET + 4].copy_from_slice(&0x1f80u32.to_le_bytes());
        Some(area)
    }

    /// Returns the image's bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` points to `state_size()` bytes owned by self.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), state_size()) }
    }

    /// Returns the image's bytes for writing.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` makes the access unique.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), state_size()) }
    }

    /// Saves this CPU's live user FPU state into the area.
    pub fn save_live(&mut self) {
        // SAFETY: the area is 64-byte aligned and `state_size()` bytes,
        // the size XSAVE needs for the components in XCR0 (512 for FXSAVE).
        unsafe { save_to(self.ptr.as_ptr()) }
    }

    /// Loads this CPU's FPU state from the area, which holds an image
    /// saved by [`FpuArea::save_live`], made by [`FpuArea::initial`] or
    /// checked by [`FpuArea::validate`].
    pub fn load_live(&self) {
        // SAFETY: as in `save_live`; the image is one XRSTOR/FXRSTOR
        // accepts (see the constructors and `validate`).
        unsafe { load_from(self.ptr.as_ptr()) }
    }

    /// Checks an image that came from user memory against everything that
    /// would make XRSTOR/FXRSTOR fault: reserved MXCSR bits, and with XSAVE
    /// a compacted or non-zero reserved header, or XSTATE_BV bits outside
    /// XCR0.
    pub fn validate(&self) -> Result<(), InvalidFpuState> {
        let bytes = self.bytes();
        let mxcsr = u32::from_le_bytes(bytes[MXCSR_OFFSET..MXCSR_OFFSET + 4].try_into().unwrap());
        if mxcsr & !MXCSR_MASK.load(Ordering::Relaxed) != 0 {
            return Err(InvalidFpuState);
        }
        if xsave_enabled() {
            let header = &bytes[LEGACY_SIZE..LEGACY_SIZE + HEADER_SIZE];
            let xstate_bv = u64::from_le_bytes(header[0..8].try_into().unwrap());
            if xstate_bv & !user_xfeatures() != 0 || header[8..].iter().any(|&b| b != 0) {
                return Err(InvalidFpuState);
            }
        }
        Ok(())
    }

    /// Copies another area's image into this one.
    pub fn copy_from(&mut self, other: &FpuArea) {
        self.bytes_mut().copy_from_slice(other.bytes());
    }
}

impl Drop for FpuArea {
    fn drop(&mut self) {
        // SAFETY: allocated in `initial` with this same layout.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout()) };
    }
}

/// An FPU image from user memory that the CPU would refuse to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidFpuState;

/// The legacy region and header of the initial image: XRSTOR with
/// XSTATE_BV zero reads nothing past the header (every component takes its
/// initial configuration, MXCSR comes from the legacy region), and FXRSTOR
/// reads the first 512 bytes.
#[repr(C, align(64))]
struct InitialImage([u8; LEGACY_SIZE + HEADER_SIZE]);

static INITIAL_IMAGE: InitialImage = {
    let mut image = [0u8; LEGACY_SIZE + HEADER_SIZE];
    image[0] = 0x7f; // FCW 0x037f
    image[1] = 0x03;
    image[MXCSR_OFFSET] = 0x80; // MXCSR 0x1f80
    image[MXCSR_OFFSET + 1] = 0x1f;
    InitialImage(image)
};

/// Resets this CPU's live user state to the initial one (execve).
pub(crate) fn load_initial() {
    // SAFETY: the image is 64-byte aligned and valid for both XRSTOR (a
    // zero header: only the legacy region and header are read) and FXRSTOR.
    unsafe { load_from(INITIAL_IMAGE.0.as_ptr()) }
}

/// Saves the live user state to `area`.
///
/// # Safety
/// `area` is 64-byte aligned, writable for `state_size()` bytes, and not
/// accessed by anything else meanwhile.
pub(crate) unsafe fn save_to(area: *mut u8) {
    if xsave_enabled() {
        // SAFETY: per the contract; RFBM all ones saves every XCR0 component.
        unsafe { asm!("xsave64 [{}]", in(reg) area, in("eax") u32::MAX, in("edx") u32::MAX, options(nostack)) };
    } else {
        // SAFETY: per the contract (FXSAVE needs 16-byte alignment, 512 bytes).
        unsafe { asm!("fxsave64 [{}]", in(reg) area, options(nostack)) };
    }
}

/// Loads the live user state from `area`.
///
/// # Safety
/// As for [`save_to`], readable, and holding an image XRSTOR/FXRSTOR
/// accepts (saved by this CPU family, initial, or validated).
pub(crate) unsafe fn load_from(area: *const u8) {
    if xsave_enabled() {
        // SAFETY: per the contract.
        unsafe { asm!("xrstor64 [{}]", in(reg) area, in("eax") u32::MAX, in("edx") u32::MAX, options(nostack)) };
    } else {
        // SAFETY: per the contract.
        unsafe { asm!("fxrstor64 [{}]", in(reg) area, options(nostack)) };
    }
}

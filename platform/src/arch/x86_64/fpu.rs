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
pub(crate) const XFEATURE_PKRU: u64 = 1 << 9;

/// Size of the legacy FXSAVE region and of the XSAVE header after it.
pub const LEGACY_SIZE: usize = 512;
const HEADER_SIZE: usize = 64;
/// Where MXCSR sits in the legacy region.
const MXCSR_OFFSET: usize = 24;

static USE_XSAVE: AtomicBool = AtomicBool::new(false);
static XCR0: AtomicU64 = AtomicU64::new(XFEATURE_FP | XFEATURE_SSE);
static AREA_SIZE: AtomicU32 = AtomicU32::new(LEGACY_SIZE as u32);

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
    }
}

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

/// A 64-byte aligned, heap-allocated state image of [`state_size`] bytes:
/// a task's saved state. Only this crate writes one, and only with
/// XSAVE/FXSAVE or as the initial image, so loading it cannot fault.
pub(crate) struct FpuArea {
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
    pub(crate) fn initial() -> Option<FpuArea> {
        // SAFETY: the layout has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(Self::layout()) })?;
        let mut area = FpuArea { ptr };
        let bytes = area.bytes_mut();
        bytes[0..2].copy_from_slice(&0x037fu16.to_le_bytes());
        bytes[MXCSR_OFFSET..MXCSR_OFFSET + 4].copy_from_slice(&0x1f80u32.to_le_bytes());
        Some(area)
    }

    /// Sets the PKRU value the image holds (and marks the component
    /// present so XRSTOR loads it). Nothing without PKRU in XCR0.
    pub(crate) fn set_pkru(&mut self, value: u32) {
        if user_xfeatures() & XFEATURE_PKRU == 0 {
            return;
        }
        let (offset, _) = component_layout(9);
        let bytes = self.bytes_mut();
        bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        let bv = u64::from_le_bytes(bytes[LEGACY_SIZE..LEGACY_SIZE + 8].try_into().unwrap()) | XFEATURE_PKRU;
        bytes[LEGACY_SIZE..LEGACY_SIZE + 8].copy_from_slice(&bv.to_le_bytes());
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` points to `state_size()` bytes owned by self, and
        // `&mut self` makes the access unique.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), state_size()) }
    }

    /// Saves this CPU's live user FPU state into the area.
    pub(crate) fn save_live(&mut self) {
        // SAFETY: the area is 64-byte aligned and `state_size()` bytes,
        // the size XSAVE needs for the components in XCR0 (512 for FXSAVE).
        unsafe { save_to(self.ptr.as_ptr()) }
    }

    /// The saved image (`state_size()` bytes).
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` points to `state_size()` bytes owned by self.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), state_size()) }
    }

    /// Replaces the x87 and SSE part (the 512-byte legacy region) of the
    /// saved image, as a debugger sets it: MXCSR's reserved bits are
    /// cleared (XRSTOR would fault on them) and, with XSAVE, the header
    /// marks both components as present so XRSTOR loads them.
    pub(crate) fn set_legacy(&mut self, image: &[u8; LEGACY_SIZE]) {
        let bytes = self.bytes_mut();
        bytes[..LEGACY_SIZE].copy_from_slice(image);
        let mxcsr = u32::from_le_bytes(bytes[MXCSR_OFFSET..MXCSR_OFFSET + 4].try_into().unwrap()) & 0xffbf;
        bytes[MXCSR_OFFSET..MXCSR_OFFSET + 4].copy_from_slice(&mxcsr.to_le_bytes());
        // The software-reserved bytes stay the kernel's.
        if xsave_enabled() {
            let bv = u64::from_le_bytes(bytes[LEGACY_SIZE..LEGACY_SIZE + 8].try_into().unwrap()) | XFEATURE_FP | XFEATURE_SSE;
            bytes[LEGACY_SIZE..LEGACY_SIZE + 8].copy_from_slice(&bv.to_le_bytes());
        }
    }

    /// Loads this CPU's FPU state from the area, which holds an image
    /// saved by [`FpuArea::save_live`] or made by [`FpuArea::initial`].
    pub(crate) fn load_live(&self) {
        // SAFETY: as in `save_live`; the image is one XRSTOR/FXRSTOR
        // accepts (see the type's invariant).
        unsafe { load_from(self.ptr.as_ptr()) }
    }

}

impl Drop for FpuArea {
    fn drop(&mut self) {
        // SAFETY: allocated in `initial` with this same layout.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout()) };
    }
}

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

extern "C" {
    fn xsave_user(area: *mut u8, rfbm_lo: u32, rfbm_hi: u32) -> u32;
    fn xrstor_user(area: *const u8, rfbm_lo: u32, rfbm_hi: u32) -> u32;
    fn fxsave_user(area: *mut u8) -> u32;
    fn fxrstor_user(area: *const u8) -> u32;
    static userxsave_insn: u8;
    static userxrstor_insn: u8;
    static userfxsave_insn: u8;
    static userfxrstor_insn: u8;
    static userfpu_fixup: u8;
}

/// Returns where to resume after a fault at `rip` if it is one of the
/// user-memory save/restore instructions.
pub(crate) fn user_insn_fixup(rip: u64) -> Option<u64> {
    // SAFETY: only the addresses of the labels are taken.
    let (insns, fixup) = unsafe {
        (
            [&userxsave_insn, &userxrstor_insn, &userfxsave_insn, &userfxrstor_insn].map(|l| l as *const u8 as u64),
            &userfpu_fixup as *const u8 as u64,
        )
    };
    insns.contains(&rip).then_some(fixup)
}

/// Handles a #GP in kernel mode at one of the user-memory instructions (a
/// misaligned area, a header or MXCSR value from user memory that the CPU
/// refuses): the call fails instead. Returns false for any other #GP.
pub(crate) fn user_insn_gp(frame: &mut super::trap::TrapFrame) -> bool {
    match user_insn_fixup(frame.rip) {
        Some(fixup) => {
            frame.rip = fixup;
            true
        }
        None => false,
    }
}

/// Saves the live user state to user memory at `addr` as a signal frame
/// holds it: the standard-format XSAVE image of every enabled component
/// (the header's other fields are left as found: the caller clears them
/// first, as Linux does), or the FXSAVE image.
pub fn save_to_user(addr: usize) -> Result<(), super::user::UserFault> {
    if !super::user::is_user_range(addr, state_size()) {
        return Err(super::user::UserFault);
    }
    let xcr0 = user_xfeatures();
    // SAFETY: the range is in the user half (checked); faults are resolved
    // or caught by the fixup, so the kernel never touches anything else.
    let failed = unsafe {
        if xsave_enabled() {
            xsave_user(addr as *mut u8, xcr0 as u32, (xcr0 >> 32) as u32)
        } else {
            fxsave_user(addr as *mut u8)
        }
    };
    if failed == 0 { Ok(()) } else { Err(super::user::UserFault) }
}

/// Loads the live user state from an XSAVE image in user memory, as
/// Linux's sigreturn: XRSTOR with `features` requested, then the enabled
/// components not requested back to their initial state. Fails (leaving
/// the state undefined, as the caller then kills the task) if the image
/// is unreadable or refused by the CPU.
pub fn restore_xsave_from_user(addr: usize, features: u64) -> Result<(), super::user::UserFault> {
    if !super::user::is_user_range(addr, state_size()) {
        return Err(super::user::UserFault);
    }
    // SAFETY: as in `save_to_user`; a refused image raises #GP, which the
    // fixup turns into a failure.
    let failed = unsafe { xrstor_user(addr as *const u8, features as u32, (features >> 32) as u32) };
    if failed != 0 {
        return Err(super::user::UserFault);
    }
    init_components(user_xfeatures() & !features);
    Ok(())
}

/// Loads x87 and SSE from an FXSAVE image in user memory (a frame without
/// the XSAVE markers), every other enabled component back to its initial
/// state.
pub fn restore_fxsave_from_user(addr: usize) -> Result<(), super::user::UserFault> {
    if !super::user::is_user_range(addr, LEGACY_SIZE) {
        return Err(super::user::UserFault);
    }
    // SAFETY: as in `restore_xsave_from_user`.
    let failed = unsafe { fxrstor_user(addr as *const u8) };
    if failed != 0 {
        return Err(super::user::UserFault);
    }
    if xsave_enabled() {
        init_components(user_xfeatures() & !(XFEATURE_FP | XFEATURE_SSE));
    }
    Ok(())
}

/// Puts the components in `mask` into their initial state.
fn init_components(mask: u64) {
    if mask == 0 {
        return;
    }
    // SAFETY: the initial image is valid for XRSTOR (zero header), and the
    // mask only selects components (the CPU ANDs it with XCR0).
    unsafe {
        asm!("xrstor64 [{}]", in(reg) INITIAL_IMAGE.0.as_ptr(), in("eax") mask as u32, in("edx") (mask >> 32) as u32, options(nostack))
    };
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
/// accepts (saved by XSAVE/FXSAVE with the same XCR0, or initial).
pub(crate) unsafe fn load_from(area: *const u8) {
    if xsave_enabled() {
        // SAFETY: per the contract.
        unsafe { asm!("xrstor64 [{}]", in(reg) area, in("eax") u32::MAX, in("edx") u32::MAX, options(nostack)) };
    } else {
        // SAFETY: per the contract.
        unsafe { asm!("fxrstor64 [{}]", in(reg) area, options(nostack)) };
    }
}

/// Where the software-reserved bytes of the legacy region start.
const SW_RESERVED: usize = 464;

/// Returns (offset, size) of XSAVE state component `i` (2 and up) in the
/// standard format.
fn component_layout(i: u32) -> (usize, usize) {
    let leaf = __cpuid_count(0xd, i);
    (leaf.ebx as usize, leaf.eax as usize)
}

/// Turns a saved XSAVE image into what a debugger reads as the
/// NT_X86_XSTATE regset (Linux's standard-format "uabi" buffer): every
/// component the header marks as in its initial configuration holds its
/// initial values (XSAVE leaves such parts as they were), the reserved
/// bytes are zero, the software bytes hold XCR0, and the header holds
/// only XSTATE_BV.
fn to_uabi(image: &mut [u8]) {
    let xcr0 = user_xfeatures();
    let bv = u64::from_le_bytes(image[LEGACY_SIZE..LEGACY_SIZE + 8].try_into().unwrap()) & xcr0;
    if bv & XFEATURE_FP == 0 {
        image[0..MXCSR_OFFSET].fill(0);
        image[0..2].copy_from_slice(&0x037fu16.to_le_bytes());
        image[32..160].fill(0);
    }
    if bv & (XFEATURE_SSE | XFEATURE_YMM) == 0 {
        image[MXCSR_OFFSET..MXCSR_OFFSET + 4].copy_from_slice(&0x1f80u32.to_le_bytes());
    }
    if bv & XFEATURE_SSE == 0 {
        image[160..416].fill(0);
    }
    image[416..LEGACY_SIZE].fill(0);
    // The first word of the software bytes is XCR0 (how gdb learns which
    // components the image holds); the rest is zero.
    image[SW_RESERVED..SW_RESERVED + 8].copy_from_slice(&xcr0.to_le_bytes());
    image[LEGACY_SIZE..LEGACY_SIZE + HEADER_SIZE].fill(0);
    image[LEGACY_SIZE..LEGACY_SIZE + 8].copy_from_slice(&bv.to_le_bytes());
    for i in 2..64u32 {
        if xcr0 & (1 << i) == 0 || bv & (1 << i) != 0 {
            continue;
        }
        let (offset, len) = component_layout(i);
        if let Some(part) = image.get_mut(offset..offset + len) {
            part.fill(0);
        }
    }
}

/// Why a debugger's XSAVE image was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XstateError {
    /// Not a whole image (Linux: EFAULT).
    Size,
    /// A header or MXCSR value XRSTOR would refuse (Linux: EINVAL).
    Invalid,
}

impl FpuArea {
    /// The NT_X86_XSTATE view of the saved state.
    pub(crate) fn uabi_image(&self, out: &mut [u8]) -> usize {
        let n = out.len().min(state_size());
        let mut image = alloc::vec![0u8; state_size()];
        image.copy_from_slice(self.bytes());
        to_uabi(&mut image);
        out[..n].copy_from_slice(&image[..n]);
        n
    }

    /// Replaces the saved state with a debugger's standard-format image
    /// (NT_X86_XSTATE), checked as Linux checks it: the whole image, only
    /// enabled components in XSTATE_BV, the rest of the header zero, no
    /// reserved MXCSR bit when MXCSR is loaded.
    pub(crate) fn set_uabi(&mut self, image: &[u8]) -> Result<(), XstateError> {
        let size = state_size();
        if image.len() != size {
            return Err(XstateError::Size);
        }
        let bv = u64::from_le_bytes(image[LEGACY_SIZE..LEGACY_SIZE + 8].try_into().unwrap());
        if bv & !user_xfeatures() != 0 || image[LEGACY_SIZE + 8..LEGACY_SIZE + HEADER_SIZE].iter().any(|&b| b != 0) {
            return Err(XstateError::Invalid);
        }
        let mxcsr = u32::from_le_bytes(image[MXCSR_OFFSET..MXCSR_OFFSET + 4].try_into().unwrap());
        if bv & (XFEATURE_SSE | XFEATURE_YMM) != 0 && mxcsr & !0xffff != 0 {
            return Err(XstateError::Invalid);
        }
        let bytes = self.bytes_mut();
        // The software-reserved bytes stay the kernel's.
        bytes[..SW_RESERVED].copy_from_slice(&image[..SW_RESERVED]);
        bytes[LEGACY_SIZE..].copy_from_slice(&image[LEGACY_SIZE..]);
        let mxcsr = u32::from_le_bytes(bytes[MXCSR_OFFSET..MXCSR_OFFSET + 4].try_into().unwrap()) & 0xffbf;
        bytes[MXCSR_OFFSET..MXCSR_OFFSET + 4].copy_from_slice(&mxcsr.to_le_bytes());
        Ok(())
    }
}

//! Resource limits (getrlimit/setrlimit/prlimit64 read and change them).

use linux_raw_sys::general as abi;

/// Per-process resource limits: [current, max] by resource number.
pub type Limits = [[u64; 2]; 16];

/// Linux's defaults for a root shell (init's RLIMIT_NPROC and
/// RLIMIT_SIGPENDING are then set from RAM, `process::nproc`).
pub const DEFAULT_LIMITS: Limits = {
    let inf = u64::MAX;
    let mut l = [[inf, inf]; 16];
    l[abi::RLIMIT_STACK as usize] = [8 << 20, inf];
    l[abi::RLIMIT_CORE as usize] = [0, inf];
    l[abi::RLIMIT_NOFILE as usize] = [1024, 4096];
    l[abi::RLIMIT_NPROC as usize] = [7782, 7782];
    l[abi::RLIMIT_MEMLOCK as usize] = [8 << 20, 8 << 20];
    l[abi::RLIMIT_SIGPENDING as usize] = [7782, 7782];
    l[abi::RLIMIT_MSGQUEUE as usize] = [819200, 819200];
    l[abi::RLIMIT_NICE as usize] = [0, 0];
    l[abi::RLIMIT_RTPRIO as usize] = [0, 0];
    l
};

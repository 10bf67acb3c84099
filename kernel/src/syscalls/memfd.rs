//! memfd_create. The files and their seals live in `fs/memfd.rs`; the
//! seal commands come through fcntl (`fs.rs`).

use linux_raw_sys::general as abi;

use crate::error::{Errno, Result};
use crate::process::Thread;

/// The flags Linux 6.1 accepts (MFD_NOEXEC_SEAL and MFD_EXEC came in 6.3).
const ALL_FLAGS: u32 = abi::MFD_CLOEXEC | abi::MFD_ALLOW_SEALING | abi::MFD_HUGETLB;

pub fn memfd_create(thread: &Thread, name: usize, flags: u32) -> Result<isize> {
    let allowed = if flags & abi::MFD_HUGETLB == 0 { ALL_FLAGS } else { ALL_FLAGS | (abi::MFD_HUGE_MASK << abi::MFD_HUGE_SHIFT) };
    if flags & !allowed != 0 {
        return Err(Errno::EINVAL);
    }
    let name = super::read_user_cstr(name, crate::fs::memfd::NAME_MAX).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::EINVAL } else { e })?;
    if flags & abi::MFD_HUGETLB != 0 {
        // No hugetlbfs: Linux's answer for a huge page size it has no
        // pool for.
        return Err(Errno::ENODEV);
    }
    let cred = super::fs::fs_cred(thread);
    let file = crate::fs::memfd::create(&name, flags & abi::MFD_ALLOW_SEALING != 0, cred.uid, cred.gid)?;
    let table = thread.process.files.lock().clone();
    let fd = table.lock().insert(file, flags & abi::MFD_CLOEXEC != 0)?;
    Ok(fd as isize)
}

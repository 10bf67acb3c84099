//! remap_file_pages(2): deprecated since Linux 3.16, which emulates it by
//! mapping the range again (mm::remap); the argument checks are Linux
//! 6.1's: a protection other than 0 is EINVAL, the start and size are cut
//! to pages, an empty or wrapping range and a wrapping page offset are
//! EINVAL. Only MAP_NONBLOCK is looked at in the flags (it leaves the
//! pages unpopulated, as Kevlar always does).

use kevlar_platform::mm::PAGE_SIZE;

use crate::error::{Errno, Result};
use crate::process::Thread;

pub fn remap_file_pages(thread: &Thread, start: usize, size: usize, prot: u64, pgoff: usize, flags: u64) -> Result<isize> {
    let _ = flags;
    if prot != 0 {
        return Err(Errno::EINVAL);
    }
    let start = start & !(PAGE_SIZE - 1);
    let size = size & !(PAGE_SIZE - 1);
    if start.checked_add(size).is_none_or(|end| end <= start) {
        return Err(Errno::EINVAL);
    }
    if pgoff.checked_add(size / PAGE_SIZE).is_none() {
        return Err(Errno::EINVAL);
    }
    let vm = thread.process.vm.lock().clone();
    vm.lock().remap_file_pages(start, size, pgoff)?;
    Ok(0)
}

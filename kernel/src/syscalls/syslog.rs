//! syslog(2): reading and clearing the kernel log, setting the console
//! level (the work is in `klog`).

use crate::error::{Errno, Result};
use crate::process::Thread;
use crate::uaccess::copy_to_user;

pub fn syslog(thread: &Thread, action: i32, buf: usize, len: i32) -> Result<isize> {
    let mut copy_out = |bytes: &[u8]| -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        if buf == 0 {
            return Err(Errno::EINVAL);
        }
        copy_to_user(buf, bytes)?;
        Ok(())
    };
    // CAP_SYSLOG, or CAP_SYS_ADMIN (which Linux still accepts, with a warning).
    let is_root = {
        let c = thread.process.creds.lock();
        c.has_cap(linux_raw_sys::general::CAP_SYSLOG) || c.has_cap(linux_raw_sys::general::CAP_SYS_ADMIN)
    };
    crate::klog::syslog(is_root, action, buf != 0, len, &mut copy_out, &|| thread.has_pending_signal())
}

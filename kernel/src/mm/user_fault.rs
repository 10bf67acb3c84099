//! Faults on user addresses resolved for the kernel: the platform's hook
//! when a user copy faults, and copies that ran without resolving faults
//! (`fs::userio`) faulting a page in before they retry.

use kevlar_platform::x86::user::is_user_range;

use super::FaultOutcome;
use crate::process::current;

/// Maps the user page at `addr` for the current thread as a fault there
/// would (a store when `write`); false when the access is not allowed.
pub fn resolve(addr: usize, write: bool) -> bool {
    let Some(thread) = current() else { return false };
    let vm = thread.process.vm.lock().clone();
    let outcome = {
        let mut vm = vm.lock();
        // A page the thread's PKRU closes is not mapped for it (the copy
        // fails with EFAULT, as Linux's access_error decides).
        if vm.key_denial(addr, write, false, false).is_some() {
            return false;
        }
        vm.handle_fault(addr, write, false)
    };
    if outcome == FaultOutcome::OutOfMemory {
        // The copy fails with EFAULT; the killer runs on the way back to
        // user mode (locks may be held here).
        super::oom::request();
    }
    outcome == FaultOutcome::Fixed
}

/// `resolve` for an address not yet checked to be in the user half.
pub fn fault_in(addr: usize, write: bool) -> bool {
    is_user_range(addr, 1) && resolve(addr, write)
}

//! Terminals. A [`Tty`] is one terminal (the serial console, each
//! pseudo-terminal slave): the line discipline from `kevlar_tty`, the window
//! size, and the job-control state Linux keeps per terminal (the session it
//! controls and its foreground process group). Drivers feed it input
//! ([`Tty::receive_input`]) and take its output; processes reach it through
//! [`TtyFile`]s opened as /dev/ttyS0, /dev/console, /dev/tty or
//! /dev/pts/N.
//!
//! Job control follows Linux's `tty_jobctrl.c`: a session leader opening a
//! terminal without O_NOCTTY (or with TIOCSCTTY) makes it the controlling
//! terminal of its session; signal characters signal the foreground group;
//! background groups get SIGTTIN when they read and SIGTTOU when they write
//! with TOSTOP or change the settings; when the session leader exits or a
//! pty master closes, the terminal hangs up.

pub mod console;
pub mod devpts;
pub mod pty;
pub mod vt;

use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

use kevlar_platform::sync::SpinLock;
use kevlar_tty::{Effects, JobSignal, LineDiscipline, Termios, Winsize};
use kevlar_vfs::Stat;
use linux_raw_sys::general as abi;
use linux_raw_sys::ioctl;

use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents, POLLERR, POLLHUP, POLLIN, POLLOUT};
use crate::process::signal::{self, SigInfo};
use crate::process::wait_queue::WaitQueue;
use crate::process::{all_processes, current, Pid, Process};
use crate::uaccess::{copy_from_user, copy_to_user};

/// Major of the virtual consoles (/dev/ttyN is 4:N) and the serial ports
/// (/dev/ttyS0 is 4:64).
pub const TTY_MAJOR: u32 = 4;
/// Major of /dev/tty (5:0), /dev/console (5:1) and /dev/ptmx (5:2).
pub const TTYAUX_MAJOR: u32 = 5;
/// The first major of pseudo-terminal slaves (/dev/pts/N is 136:N).
pub const PTS_MAJOR: u32 = 136;

/// Where a terminal's output goes.
enum Driver {
    /// The serial port.
    Console,
    /// The master side of a pseudo-terminal.
    PtySlave(Weak<pty::Pty>),
    /// A virtual console's screen.
    VirtualConsole(vt::Screen),
}

/// Session leaders whose terminal hung up under them, with the group that
/// was in the foreground then (Linux's `signal->tty_old_pgrp`): when the
/// leader exits, that group gets SIGHUP and SIGCONT.
static OLD_PGRP: SpinLock<Vec<(Pid, Pid)>> = SpinLock::new(Vec::new());

/// Readiness changes of any terminal or pty master so far: what
/// edge-triggered epoll compares (an approximation over all terminals: an
/// entry may report again after another terminal's change, never miss one).
static READY_EVENTS: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// Records a readiness change and wakes poll, select and epoll waiters.
fn notify_ready() {
    READY_EVENTS.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    crate::fs::file::notify_pollers();
}

/// The readiness-change count for `poll_counts`.
pub(crate) fn ready_events() -> u64 {
    READY_EVENTS.load(core::sync::atomic::Ordering::Relaxed)
}

/// A terminal.
pub struct Tty {
    /// The device number: (4, 64) for the console, (136, N) for a pty.
    pub rdev: (u32, u32),
    state: SpinLock<TtyState>,
    /// Readers wait here for input.
    read_wait: WaitQueue,
    /// Writers wait here for room, or for stopped output to restart.
    write_wait: WaitQueue,
    driver: Driver,
}

struct TtyState {
    ldisc: LineDiscipline,
    winsize: Winsize,
    /// The session this is the controlling terminal of.
    session: Option<Pid>,
    /// The foreground process group.
    pgrp: Option<Pid>,
    /// Counts hangups: a file opened before the latest one is hung up.
    hangups: u64,
    /// Open files of this terminal (all paths to it).
    opens: usize,
    /// Echo produced while output was stopped (VSTOP, TCOOFF): it goes
    /// out when output restarts, as Linux keeps it in its echo buffer.
    held_echo: Vec<u8>,
}

/// The most output one byte can become (a tab expanded to spaces): a writer
/// that made no progress waits for this much room, so it cannot spin on a
/// device with room for part of an expansion only.
const MAX_EXPANSION: usize = 8;

/// What a hung-up file's poll reports (Linux's `hung_up_tty_poll`).
const HUNG_UP_EVENTS: PollEvents = POLLIN | POLLOUT | POLLERR | POLLHUP;

impl Tty {
    fn new(rdev: (u32, u32), termios: Termios, winsize: Winsize, driver: Driver) -> Tty {
        Tty {
            rdev,
            state: SpinLock::new(TtyState {
                ldisc: LineDiscipline::new(termios),
                winsize,
                session: None,
                pgrp: None,
                hangups: 0,
                opens: 0,
                held_echo: Vec::new(),
            }),
            read_wait: WaitQueue::new(),
            write_wait: WaitQueue::new(),
            driver,
        }
    }

    fn is_pty(&self) -> bool {
        matches!(self.driver, Driver::PtySlave(_))
    }

    fn pty(&self) -> Option<Arc<pty::Pty>> {
        match &self.driver {
            Driver::PtySlave(pty) => pty.upgrade(),
            Driver::Console | Driver::VirtualConsole(_) => None,
        }
    }

    /// Room for output at the device now.
    fn output_room(&self) -> usize {
        match &self.driver {
            Driver::Console | Driver::VirtualConsole(_) => usize::MAX,
            Driver::PtySlave(pty) => pty.upgrade().map_or(0, |p| p.output_room()),
        }
    }

    /// Sends processed bytes to the device.
    fn emit(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        match &self.driver {
            Driver::Console => kevlar_platform::console::write_exact(bytes),
            Driver::VirtualConsole(screen) => screen.show(bytes),
            Driver::PtySlave(pty) => {
                if let Some(pty) = pty.upgrade() {
                    pty.push_output(bytes);
                }
            }
        }
    }

    /// Processes input from the device: editing, echo, signal characters.
    /// Returns how many bytes were taken (fewer when the input buffer is
    /// full). Signals go to the foreground group after the state lock is
    /// dropped.
    pub fn receive_input(&self, bytes: &[u8]) -> usize {
        let mut effects = Effects::default();
        let (taken, pgrp) = {
            let mut state = self.state.lock();
            let taken = state.ldisc.receive(bytes, &mut effects);
            if state.ldisc.output_stopped() {
                state.held_echo.extend_from_slice(&effects.output);
            } else {
                let mut held = core::mem::take(&mut state.held_echo);
                held.extend_from_slice(&effects.output);
                self.emit(&held);
            }
            (taken, state.pgrp)
        };
        if let Some(pgrp) = pgrp {
            for sig in &effects.signals {
                let number = match sig {
                    JobSignal::Interrupt => abi::SIGINT,
                    JobSignal::Quit => abi::SIGQUIT,
                    JobSignal::Suspend => abi::SIGTSTP,
                };
                signal_group(pgrp, number);
            }
        }
        self.read_wait.wake_all();
        if effects.output_started {
            self.write_wait.wake_all();
        }
        notify_ready();
        taken
    }

    /// Whether the input buffer can take no more.
    fn input_full(&self) -> bool {
        self.state.lock().ldisc.is_full()
    }

    /// Tells readers and writers that the terminal changed state (hangup,
    /// settings, the other side going away).
    fn wake_everyone(&self) {
        self.read_wait.wake_all();
        self.write_wait.wake_all();
        notify_ready();
    }

    fn after_read(&self) {
        // Room in the input buffer: the pty master's writers, or console
        // bytes held back, may go on.
        match &self.driver {
            Driver::Console => console::pump(),
            Driver::PtySlave(pty) => {
                if let Some(pty) = pty.upgrade() {
                    pty.wait.wake_all();
                }
            }
            Driver::VirtualConsole(_) => {}
        }
        notify_ready();
    }

    /// Reads as Linux's `n_tty_read`: a line in canonical mode; otherwise
    /// as VMIN and VTIME say.
    fn read(&self, file: &TtyFile, open: &OpenFile, buf: &mut [u8]) -> Result<usize> {
        if file.is_hung_up() {
            return Ok(0);
        }
        if !file.via_console {
            self.job_control(signal::SIGTTIN)?;
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let policy = self.state.lock().ldisc.read_policy();
        let thread = current().ok_or(Errno::EIO)?;
        let mut copied = 0;
        let mut timeout = policy.first_timeout_ns;
        let outcome = loop {
            let (n, available) = {
                let mut state = self.state.lock();
                if state.ldisc.input_available(false) {
                    (state.ldisc.read(&mut buf[copied..]), true)
                } else {
                    (0, false)
                }
            };
            if available {
                copied += n;
                self.after_read();
                if copied >= policy.minimum || copied == buf.len() {
                    break Ok(());
                }
                if policy.inter_byte_timeout_ns.is_some() {
                    timeout = policy.inter_byte_timeout_ns;
                }
                continue;
            }
            if file.is_hung_up() {
                break Ok(());
            }
            if timeout == Some(0) {
                break Ok(());
            }
            if open.nonblocking() {
                break Err(Errno::EAGAIN);
            }
            let deadline = timeout.map(|t| kevlar_platform::time::monotonic_ns().saturating_add(t));
            if let Some(d) = deadline {
                crate::timer::arm(d, thread.clone());
            }
            let waited = self.read_wait.wait_until(|| {
                let state = self.state.lock();
                let ready = state.ldisc.input_available(false) || file.hung_up_in(&state);
                drop(state);
                if ready {
                    return Ok(Some(true));
                }
                if deadline.is_some_and(|d| kevlar_platform::time::monotonic_ns() >= d) {
                    return Ok(Some(false));
                }
                Ok(None)
            });
            if deadline.is_some() {
                crate::timer::disarm(&thread);
            }
            match waited {
                Ok(true) => {}
                Ok(false) => timeout = Some(0),
                Err(e) => break Err(e),
            }
        };
        match outcome {
            Err(_) if copied > 0 => Ok(copied),
            Err(e) => Err(e),
            Ok(()) => Ok(copied),
        }
    }

    /// Writes as Linux's `n_tty_write`: output processing, then the device;
    /// waits while output is stopped or the device has no room.
    fn write(&self, file: &TtyFile, open: &OpenFile, data: &[u8]) -> Result<usize> {
        if file.is_hung_up() {
            return Err(Errno::EIO);
        }
        if !file.via_console && self.state.lock().ldisc.termios().local(abi::TOSTOP) {
            self.job_control(signal::SIGTTOU)?;
        }
        let mut done = 0;
        while done < data.len() {
            let progress = {
                let mut state = self.state.lock();
                if self.is_pty() && self.pty().is_none_or(|p| !p.master_is_open()) {
                    return if done > 0 { Ok(done) } else { Err(Errno::EIO) };
                }
                if state.ldisc.output_stopped() {
                    0
                } else {
                    let room = self.output_room();
                    let mut out = Vec::new();
                    let n = state.ldisc.process_output(&data[done..], &mut out, room.min(4096));
                    self.emit(&out);
                    n
                }
            };
            if progress > 0 {
                done += progress;
                continue;
            }
            if open.nonblocking() {
                return if done > 0 { Ok(done) } else { Err(Errno::EAGAIN) };
            }
            let waited = self.write_wait.wait_until(|| {
                let state = self.state.lock();
                let gone = file.hung_up_in(&state) || (self.is_pty() && self.pty().is_none_or(|p| !p.master_is_open()));
                Ok((gone || (!state.ldisc.output_stopped() && self.output_room() >= MAX_EXPANSION)).then_some(()))
            });
            if let Err(e) = waited {
                return if done > 0 { Ok(done) } else { Err(e) };
            }
            if file.is_hung_up() {
                return if done > 0 { Ok(done) } else { Err(Errno::EIO) };
            }
        }
        Ok(done)
    }

    fn poll(&self, file: &TtyFile) -> PollEvents {
        if file.is_hung_up() {
            return HUNG_UP_EVENTS;
        }
        let state = self.state.lock();
        let mut events = 0;
        if state.ldisc.input_available(true) {
            events |= POLLIN;
        }
        if !state.ldisc.output_stopped() && self.output_room() > 0 {
            events |= POLLOUT;
        }
        events
    }

    /// Linux's `__tty_check_change`: a process of a background group using
    /// its controlling terminal gets `sig` (SIGTTIN for reads, SIGTTOU for
    /// writes with TOSTOP and for changes) and the call is restarted once
    /// it is continued; if the signal is blocked or ignored, reads fail
    /// with EIO and the rest goes on; an orphaned group gets EIO.
    fn job_control(&self, sig: u32) -> Result<()> {
        let Some(thread) = current() else { return Ok(()) };
        let process = &thread.process;
        if !is_controlling(process, self) {
            return Ok(());
        }
        let own = process.pgid.load(Ordering::Relaxed);
        let Some(foreground) = self.state.lock().pgrp else { return Ok(()) };
        if foreground == own {
            return Ok(());
        }
        let ignored = {
            let signals = process.signals.lock();
            signals.blocked(thread.tid()) & signal::bit(sig) != 0 || signals.actions[sig as usize - 1].handler == SIG_IGN
        };
        if ignored {
            return if sig == signal::SIGTTIN { Err(Errno::EIO) } else { Ok(()) };
        }
        if signal::group_is_orphaned(process) {
            return Err(Errno::EIO);
        }
        signal_group(own, sig);
        // ERESTARTSYS: the call runs again after the stop (or fails with
        // EINTR if a handler without SA_RESTART runs).
        Err(Errno::EINTR)
    }

    /// Hangs the terminal up (Linux's `__tty_hangup`): every file opened
    /// before now, except through /dev/console, reads end-of-file and fails
    /// writes; input is discarded; the processes of its session lose it as
    /// their controlling terminal and the session leader gets SIGHUP and
    /// SIGCONT. With `exit_session` (the session leader exited) the
    /// foreground group gets SIGHUP too.
    pub fn hangup(&self, exit_session: bool) {
        let (session, pgrp) = {
            let mut state = self.state.lock();
            state.hangups += 1;
            state.ldisc.flush_input();
            (state.session.take(), state.pgrp.take())
        };
        if let Some(sid) = session {
            for p in session_members(sid) {
                {
                    let mut ctty = p.ctty.lock();
                    if ctty.as_ref().is_some_and(|t| core::ptr::eq(&**t, self)) {
                        *ctty = None;
                    }
                }
                if p.pid == sid && !is_exiting(&p) {
                    send_kernel_signal(&p, signal::SIGHUP);
                    send_kernel_signal(&p, signal::SIGCONT);
                    if let Some(pgrp) = pgrp {
                        let mut old = OLD_PGRP.lock();
                        old.retain(|&(leader, _)| leader != p.pid);
                        old.push((p.pid, pgrp));
                    }
                }
            }
        }
        if exit_session {
            if let Some(pgrp) = pgrp {
                signal_group(pgrp, signal::SIGHUP);
            }
        }
        self.wake_everyone();
    }

    /// Ends the terminal's tie to its session without a hangup (the
    /// session leader of a pty exits, or gives it up with TIOCNOTTY): the
    /// foreground group gets SIGHUP, and SIGCONT unless the leader exits.
    fn disassociate(&self, on_exit: bool) {
        let (session, pgrp) = {
            let mut state = self.state.lock();
            (state.session.take(), state.pgrp.take())
        };
        if let Some(pgrp) = pgrp {
            signal_group(pgrp, signal::SIGHUP);
            if !on_exit {
                signal_group(pgrp, signal::SIGCONT);
            }
        }
        if let Some(sid) = session {
            clear_session_tty(sid, self);
        }
    }

    /// The terminal ioctls. `via_master` is set for calls on a pty master,
    /// which Linux applies to the slave (its `real_tty`).
    fn ioctl(self: &Arc<Self>, file: Option<&TtyFile>, request: u32, arg: usize, via_master: bool) -> Result<isize> {
        if file.is_some_and(|f| f.is_hung_up()) {
            return Err(if request == ioctl::TIOCSPGRP { Errno::ENOTTY } else { Errno::EIO });
        }
        // Linux checks flushes, flow control and breaks against the terminal
        // the call came through (a master is nobody's controlling tty), but
        // settings and the foreground group against the slave itself.
        let check = |tty: &Tty, sig: u32| if via_master { Ok(()) } else { tty.job_control(sig) };
        let process = current().map(|t| t.process.clone());
        match request {
            ioctl::TCGETS => {
                let termios = *self.state.lock().ldisc.termios();
                copy_to_user(arg, &termios.to_bytes())?;
                Ok(0)
            }
            ioctl::TCSETS | ioctl::TCSETSW | ioctl::TCSETSF => {
                self.job_control(signal::SIGTTOU)?;
                let mut raw = [0u8; Termios::SIZE];
                copy_from_user(&mut raw, arg)?;
                let mut termios = Termios::from_bytes(&raw);
                if self.is_pty() {
                    // The pty driver always reads 8-bit bytes, without parity.
                    termios.cflag = (termios.cflag & !(abi::CSIZE | abi::PARENB)) | abi::CS8 | abi::CREAD;
                }
                {
                    let mut state = self.state.lock();
                    if request == ioctl::TCSETSF {
                        state.ldisc.flush_input();
                    }
                    if state.ldisc.set_termios(termios) {
                        let held = core::mem::take(&mut state.held_echo);
                        self.emit(&held);
                    }
                }
                self.wake_everyone();
                Ok(0)
            }
            ioctl::TIOCGWINSZ => {
                let winsize = self.state.lock().winsize;
                copy_to_user(arg, &winsize.to_bytes())?;
                Ok(0)
            }
            ioctl::TIOCSWINSZ => {
                let mut raw = [0u8; Winsize::SIZE];
                copy_from_user(&mut raw, arg)?;
                let winsize = Winsize::from_bytes(&raw);
                let pgrp = {
                    let mut state = self.state.lock();
                    if state.winsize == winsize {
                        return Ok(0);
                    }
                    state.winsize = winsize;
                    state.pgrp
                };
                if let Some(pgrp) = pgrp {
                    signal_group(pgrp, signal::SIGWINCH);
                }
                Ok(0)
            }
            ioctl::TIOCGPGRP => {
                let process = process.ok_or(Errno::ENOTTY)?;
                if !via_master && !is_controlling(&process, self) {
                    return Err(Errno::ENOTTY);
                }
                let pgrp = self.state.lock().pgrp.unwrap_or(0);
                copy_to_user(arg, &pgrp.to_le_bytes())?;
                Ok(0)
            }
            ioctl::TIOCSPGRP => {
                let process = process.ok_or(Errno::ENOTTY)?;
                match self.job_control(signal::SIGTTOU) {
                    Err(Errno::EIO) => return Err(Errno::ENOTTY),
                    other => other?,
                }
                let raw = crate::uaccess::read_bytes::<4>(arg)?;
                let pgrp = i32::from_le_bytes(raw);
                if pgrp < 0 {
                    return Err(Errno::EINVAL);
                }
                let sid = process.sid.load(Ordering::Relaxed);
                if !is_controlling(&process, self) || self.state.lock().session != Some(sid) {
                    return Err(Errno::ENOTTY);
                }
                let group_session = session_of_group(pgrp).ok_or(Errno::ESRCH)?;
                if group_session != sid {
                    return Err(Errno::EPERM);
                }
                self.state.lock().pgrp = Some(pgrp);
                Ok(0)
            }
            ioctl::TIOCGSID => {
                let process = process.ok_or(Errno::ENOTTY)?;
                if !via_master && !is_controlling(&process, self) {
                    return Err(Errno::ENOTTY);
                }
                let sid = self.state.lock().session.ok_or(Errno::ENOTTY)?;
                copy_to_user(arg, &sid.to_le_bytes())?;
                Ok(0)
            }
            ioctl::TIOCSCTTY => {
                let process = process.ok_or(Errno::EPERM)?;
                let readable = file.is_none_or(|f| f.readable);
                self.make_controlling(&process, arg as i32 == 1, readable)?;
                Ok(0)
            }
            ioctl::TIOCNOTTY => {
                let process = process.ok_or(Errno::ENOTTY)?;
                if via_master || !is_controlling(&process, self) {
                    return Err(Errno::ENOTTY);
                }
                if process.sid.load(Ordering::Relaxed) == process.pid {
                    *process.ctty.lock() = None;
                    self.disassociate(false);
                } else {
                    *process.ctty.lock() = None;
                }
                Ok(0)
            }
            ioctl::FIONREAD => {
                let count = self.state.lock().ldisc.readable_bytes() as i32;
                copy_to_user(arg, &count.to_le_bytes())?;
                Ok(0)
            }
            ioctl::TIOCOUTQ => {
                // Output leaves at once: the console writes synchronously,
                // a pty's goes to the master's buffer (Linux reports 0 too).
                copy_to_user(arg, &0i32.to_le_bytes())?;
                Ok(0)
            }
            ioctl::TCFLSH => {
                check(self, signal::SIGTTOU)?;
                match arg as u32 {
                    abi::TCIFLUSH | abi::TCIOFLUSH => {
                        self.state.lock().ldisc.flush_input();
                        self.after_read();
                    }
                    // Output is handed to the device at once: nothing waits.
                    abi::TCOFLUSH => {}
                    _ => return Err(Errno::EINVAL),
                }
                Ok(0)
            }
            ioctl::TCXONC => {
                check(self, signal::SIGTTOU)?;
                match arg as u32 {
                    abi::TCOOFF => self.state.lock().ldisc.set_output_stopped(true),
                    abi::TCOON => {
                        {
                            let mut state = self.state.lock();
                            state.ldisc.set_output_stopped(false);
                            let held = core::mem::take(&mut state.held_echo);
                            self.emit(&held);
                        }
                        self.write_wait.wake_all();
                        notify_ready();
                    }
                    abi::TCIOFF | abi::TCION => {
                        let index = if arg as u32 == abi::TCIOFF { abi::VSTOP } else { abi::VSTART };
                        let c = self.state.lock().ldisc.termios().cc(index);
                        if c != 0 {
                            self.emit(&[c]);
                        }
                    }
                    _ => return Err(Errno::EINVAL),
                }
                Ok(0)
            }
            ioctl::TCSBRK | ioctl::TCSBRKP => {
                // tcdrain() and tcsendbreak(): output is never queued here,
                // and neither device has a break condition to send.
                check(self, signal::SIGTTOU)?;
                Ok(0)
            }
            ioctl::TIOCSTI => {
                let process = process.ok_or(Errno::EPERM)?;
                let root = crate::process::access::capable(&process, linux_raw_sys::general::CAP_SYS_ADMIN);
                if !root && !(is_controlling(&process, self) && file.is_some_and(|f| f.readable)) {
                    return Err(Errno::EPERM);
                }
                let c = crate::uaccess::read_bytes::<1>(arg)?;
                self.receive_input(&c);
                Ok(0)
            }
            // Only a master has a peer to open (Linux checks the driver).
            ioctl::TIOCGPTPEER => Err(Errno::EIO),
            ioctl::TIOCVHANGUP => {
                // Linux's tty_vhangup of the terminal the call came
                // through (a master's is handled by the master).
                let root = process.is_some_and(|p| crate::process::access::capable(&p, abi::CAP_SYS_ADMIN));
                if !root {
                    return Err(Errno::EPERM);
                }
                self.hangup(false);
                Ok(0)
            }
            ioctl::TIOCGETD => {
                copy_to_user(arg, &0i32.to_le_bytes())?; // N_TTY
                Ok(0)
            }
            // The console driver's own ioctls (Linux's `vt_ioctl`).
            _ if matches!(self.driver, Driver::VirtualConsole(_)) => {
                vt::ioctl(self, self.rdev.1 as usize - 1, request, arg).unwrap_or(Err(Errno::ENOTTY))
            }
            _ => Err(Errno::ENOTTY),
        }
    }

    /// TIOCSCTTY (Linux's `tiocsctty`): makes this the controlling terminal
    /// of the caller's session. The caller must be a session leader without
    /// one; a terminal controlling another session can only be taken by
    /// root asking to `steal` it.
    fn make_controlling(self: &Arc<Self>, process: &Arc<Process>, steal: bool, readable: bool) -> Result<()> {
        let sid = process.sid.load(Ordering::Relaxed);
        let leader = sid == process.pid;
        let session = self.state.lock().session;
        if leader && session == Some(sid) {
            return Ok(());
        }
        if !leader || process.ctty.lock().is_some() {
            return Err(Errno::EPERM);
        }
        let root = crate::process::access::capable(process, linux_raw_sys::general::CAP_SYS_ADMIN);
        if let Some(other) = session {
            if steal && root {
                clear_session_tty(other, self);
            } else {
                return Err(Errno::EPERM);
            }
        }
        if !readable && !root {
            return Err(Errno::EPERM);
        }
        if set_controlling(process, self) {
            Ok(())
        } else {
            Err(Errno::EPERM) // another session took it meanwhile
        }
    }

    /// Counts a new open file of this terminal.
    fn opened(&self) -> u64 {
        let mut state = self.state.lock();
        state.opens += 1;
        state.hangups
    }

    /// Counts a closed file; returns whether it was the last one.
    fn closed(&self) -> bool {
        let mut state = self.state.lock();
        state.opens -= 1;
        state.opens == 0
    }
}

// include/uapi/asm-generic/signal-defs.h: SIG_IGN is (__sighandler_t)1.
const SIG_IGN: u64 = 1;

fn is_exiting(process: &Process) -> bool {
    process.exit_status().is_some()
}

fn send_kernel_signal(process: &Arc<Process>, sig: u32) {
    let _ = signal::send_signal_info(process, SigInfo::new(sig, signal::SI_KERNEL));
}

/// Sends `sig` from the kernel to every member of process group `pgrp`
/// (Linux's `kill_pgrp(pgrp, sig, 1)`: si_code SI_KERNEL).
pub fn signal_group(pgrp: Pid, sig: u32) {
    let _no_fork = crate::process::group_signal_lock();
    for p in all_processes() {
        if p.pgid.load(Ordering::Relaxed) == pgrp && !is_exiting(&p) {
            send_kernel_signal(&p, sig);
        }
    }
}

fn session_members(sid: Pid) -> Vec<Arc<Process>> {
    all_processes().into_iter().filter(|p| p.sid.load(Ordering::Relaxed) == sid && !is_exiting(p)).collect()
}

/// The session of process group `pgrp`, or of process `pgrp` when no group
/// has that id (Linux's `session_of_pgrp`).
fn session_of_group(pgrp: Pid) -> Option<Pid> {
    let live: Vec<_> = all_processes().into_iter().filter(|p| !is_exiting(p)).collect();
    live.iter()
        .find(|p| p.pgid.load(Ordering::Relaxed) == pgrp)
        .or_else(|| live.iter().find(|p| p.pid == pgrp))
        .map(|p| p.sid.load(Ordering::Relaxed))
}

/// Returns the controlling terminal of `process`.
pub fn controlling_tty(process: &Process) -> Option<Arc<Tty>> {
    process.ctty.lock().clone()
}

/// The device number of the controlling terminal of `process` as
/// /proc/[pid]/stat's `tty_nr` encodes it (0 without one), for procfs.
#[allow(dead_code)]
pub fn tty_nr(process: &Process) -> u32 {
    controlling_tty(process).map_or(0, |t| {
        let (major, minor) = t.rdev;
        (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12)
    })
}

/// The foreground process group of the controlling terminal of `process`
/// as /proc/[pid]/stat's `tpgid` shows it (-1 without one), for procfs.
#[allow(dead_code)]
pub fn tpgid(process: &Process) -> Pid {
    controlling_tty(process).and_then(|t| t.state.lock().pgrp).unwrap_or(-1)
}

fn is_controlling(process: &Process, tty: &Tty) -> bool {
    process.ctty.lock().as_ref().is_some_and(|t| core::ptr::eq(&**t, tty))
}

/// Makes `tty` the controlling terminal of `process`'s session, with the
/// process's group in the foreground (Linux's `__proc_set_tty`), unless it
/// controls a session already (checked under the terminal's lock, so two
/// sessions racing for it cannot both win). Returns whether it did.
fn set_controlling(process: &Arc<Process>, tty: &Arc<Tty>) -> bool {
    {
        let mut state = tty.state.lock();
        if state.session.is_some() {
            return false;
        }
        state.session = Some(process.sid.load(Ordering::Relaxed));
        state.pgrp = Some(process.pgid.load(Ordering::Relaxed));
    }
    // A new terminal: the old one's foreground group is forgotten.
    OLD_PGRP.lock().retain(|&(leader, _)| leader != process.pid);
    *process.ctty.lock() = Some(tty.clone());
    true
}

/// Every process of session `sid` loses `tty` as its controlling terminal.
fn clear_session_tty(sid: Pid, tty: &Tty) {
    {
        let mut state = tty.state.lock();
        if state.session == Some(sid) {
            state.session = None;
            state.pgrp = None;
        }
    }
    for p in all_processes() {
        if p.sid.load(Ordering::Relaxed) == sid {
            let mut ctty = p.ctty.lock();
            if ctty.as_ref().is_some_and(|t| core::ptr::eq(&**t, tty)) {
                *ctty = None;
            }
        }
    }
}

/// Called when `process` exits (Linux's `disassociate_ctty(1)`): if it
/// leads a session with a controlling terminal, the console hangs up (its
/// foreground group gets SIGHUP) and a pty sends its foreground group
/// SIGHUP; either way the session loses the terminal.
pub fn on_exit(process: &Arc<Process>) {
    if process.sid.load(Ordering::Relaxed) != process.pid {
        return;
    }
    let old_pgrp = {
        let mut old = OLD_PGRP.lock();
        let found = old.iter().position(|&(leader, _)| leader == process.pid);
        found.map(|i| old.swap_remove(i).1)
    };
    let Some(tty) = process.ctty.lock().take() else {
        // Its terminal hung up while it led the session (disassociate_ctty
        // with no tty): the group then in the foreground is told now.
        if let Some(pgrp) = old_pgrp {
            signal_group(pgrp, signal::SIGHUP);
            signal_group(pgrp, signal::SIGCONT);
        }
        return;
    };
    if tty.is_pty() {
        tty.disassociate(true);
    } else {
        tty.hangup(true);
    }
}

/// Called by setsid: the new session has no controlling terminal.
pub fn on_setsid(process: &Process) {
    *process.ctty.lock() = None;
}

/// An open terminal: the serial console or a pty slave.
pub struct TtyFile {
    tty: Arc<Tty>,
    stat: Stat,
    /// Opened as /dev/console: never hung up, no job-control stops (as
    /// Linux's redirected console files).
    via_console: bool,
    /// The terminal's hangup count at open.
    generation: u64,
    readable: bool,
}

impl TtyFile {
    fn new(tty: Arc<Tty>, stat: Stat, via_console: bool, flags: u32) -> TtyFile {
        let generation = tty.opened();
        let accmode = flags & abi::O_ACCMODE;
        TtyFile { tty, stat, via_console, generation, readable: accmode == abi::O_RDONLY || accmode == abi::O_RDWR }
    }

    fn is_hung_up(&self) -> bool {
        self.hung_up_in(&self.tty.state.lock())
    }

    /// Whether the file is hung up, with the terminal's state at hand
    /// (for callers holding its lock).
    fn hung_up_in(&self, state: &TtyState) -> bool {
        !self.via_console && state.hangups != self.generation
    }
}

impl FileOps for TtyFile {
    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.tty.read(self, file, buf)
    }

    fn write(&self, file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        self.tty.write(self, file, buf)
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.stat.clone())
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn ioctl(&self, _file: &OpenFile, request: u32, arg: usize) -> Result<isize> {
        self.tty.clone().ioctl(Some(self), request, arg, false)
    }

    fn poll(&self) -> PollEvents {
        self.tty.poll(self)
    }

    fn is_pollable(&self) -> bool {
        true
    }

    fn poll_counts(&self) -> (u64, u64) {
        let events = ready_events();
        (events, events)
    }

    fn release(&self, _file: &OpenFile) {
        if self.tty.closed() {
            if let Some(pty) = self.tty.pty() {
                pty.slave_closed();
            }
        }
    }
}

/// Opens terminal device (major, minor) for open(2) with `flags`; `stat` is
/// the node's. Returns None for devices that are not terminals. A session
/// leader without a controlling terminal that opens one (not /dev/tty,
/// /dev/console or a pty master) without O_NOCTTY, for reading, makes it
/// its session's controlling terminal.
pub fn open(major: u32, minor: u32, stat: &Stat, flags: u32) -> Result<Option<Arc<dyn FileOps>>> {
    let process = current().map(|t| t.process.clone());
    let (tty, via_console, noctty) = match (major, minor) {
        (TTYAUX_MAJOR, 0) => {
            let tty = process.as_deref().and_then(controlling_tty).ok_or(Errno::ENXIO)?;
            (tty, false, true)
        }
        (TTYAUX_MAJOR, 1) => (console::tty(), true, true),
        (TTYAUX_MAJOR, 2) => return pty::open_master(stat).map(Some),
        (TTY_MAJOR, 64) => (console::tty(), false, false),
        // /dev/tty0 is the foreground console, never made a controlling
        // terminal by open (Linux's `tty_open`).
        (TTY_MAJOR, 0) => (vt::open(0), false, true),
        (TTY_MAJOR, minor) if minor as usize <= vt::MAX_CONSOLES => (vt::open(minor), false, false),
        (major, index) if (PTS_MAJOR..PTS_MAJOR + 8).contains(&major) => {
            let index = (major - PTS_MAJOR) * 256 + index;
            (pty::open_slave(index)?, false, false)
        }
        _ => return Ok(None),
    };
    let file = TtyFile::new(tty.clone(), stat.clone(), via_console, flags);
    if !noctty && flags & abi::O_NOCTTY == 0 {
        if let Some(process) = &process {
            let leader = process.sid.load(Ordering::Relaxed) == process.pid;
            if leader && process.ctty.lock().is_none() && file.readable {
                set_controlling(process, &tty);
            }
        }
    }
    Ok(Some(Arc::new(file)))
}

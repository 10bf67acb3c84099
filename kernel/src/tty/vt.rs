//! Virtual consoles: /dev/tty1../dev/tty63 (4:1..4:63) and /dev/tty0
//! (4:0, whichever is in the foreground), as Linux's `vt.c`, `vt_ioctl.c`
//! and `keyboard.c` define them for programs: systemd, logind, agetty and
//! the kbd tools allocate, switch, and set their keyboard and display
//! modes.
//!
//! Kevlar has no display and no keyboard, like a Linux booted with
//! `-vga none` (its dummy console): each console is a terminal with the
//! line discipline whose output goes to a screen buffer nobody sees (never
//! the serial console), and whose input comes only from TIOCSTI. The
//! state the ioctls read and change is kept as Linux keeps it: which
//! consoles are allocated, the one in the foreground, each console's
//! display mode (KD_TEXT, KD_GRAPHICS), switching mode (VT_AUTO,
//! VT_PROCESS with its release and acquire signals) and keyboard modes.
//!
//! A switch happens at once (Linux defers it to a work item; VT_WAITACTIVE
//! makes the difference invisible to a careful program). /dev/vcs* (the
//! screen contents as files) is not provided.

use alloc::collections::VecDeque;
use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;
use kevlar_tty::{Termios, Winsize};
use linux_raw_sys::general as abi;
use linux_raw_sys::ioctl;

use super::{is_controlling, Driver, Tty, TTY_MAJOR};
use crate::error::{Errno, Result};
use crate::process::signal::{self, SigInfo};
use crate::process::wait_queue::WaitQueue;
use crate::process::{current, find_process, Pid, Process};
use crate::uaccess::{copy_to_user, read_bytes};

/// How many virtual consoles there can be (Linux's MAX_NR_CONSOLES).
pub const MAX_CONSOLES: usize = 63;

/// The size of a console's screen: Linux's dummy console is 80x25.
const COLUMNS: u16 = 80;
const ROWS: u16 = 25;
/// How much of a console's latest output its screen keeps.
const SCREEN_BYTES: usize = COLUMNS as usize * ROWS as usize;

// include/uapi/linux/kd.h: display modes (KDSETMODE).
const KD_TEXT: u32 = 0;
const KD_GRAPHICS: u32 = 1;
const KD_TEXT0: u32 = 2;
const KD_TEXT1: u32 = 3;
// Keyboard modes (KDSKBMODE).
const K_RAW: u32 = 0;
const K_XLATE: u32 = 1;
const K_MEDIUMRAW: u32 = 2;
const K_UNICODE: u32 = 3;
const K_OFF: u32 = 4;
/// KDGKBTYPE's answer: a 101-key keyboard.
const KB_101: u8 = 2;
// include/uapi/linux/vt.h: switching modes (VT_SETMODE) and VT_RELDISP's
// acknowledgement of an acquired console.
const VT_AUTO: u8 = 0;
const VT_PROCESS: u8 = 1;
const VT_ACKACQ: usize = 2;
// include/uapi/linux/tiocl.h: TIOCLINUX subcodes.
const TIOCL_UNBLANKSCREEN: u8 = 4;
const TIOCL_GETSHIFTSTATE: u8 = 6;
const TIOCL_GETMOUSEREPORTING: u8 = 7;
const TIOCL_SETKMSGREDIRECT: u8 = 11;
const TIOCL_GETFGCONSOLE: u8 = 12;
const TIOCL_GETKMSGREDIRECT: u8 = 17;

/// What a console's output is drawn on: its latest bytes.
pub(super) struct Screen {
    text: SpinLock<VecDeque<u8>>,
}

impl Screen {
    pub(super) fn show(&self, bytes: &[u8]) {
        let mut text = self.text.lock();
        text.extend(bytes.iter().copied());
        let excess = text.len().saturating_sub(SCREEN_BYTES);
        text.drain(..excess);
    }
}

/// `struct vt_mode`: how switches away from and to a console happen.
#[derive(Clone, Copy, Default)]
struct SwitchMode {
    mode: u8,
    waitv: u8,
    relsig: i16,
    acqsig: i16,
}

impl SwitchMode {
    fn to_bytes(self) -> [u8; 8] {
        let mut raw = [0u8; 8];
        raw[0] = self.mode;
        raw[1] = self.waitv;
        raw[2..4].copy_from_slice(&self.relsig.to_le_bytes());
        raw[4..6].copy_from_slice(&self.acqsig.to_le_bytes());
        // frsig (bytes 6..8) is unused and always 0.
        raw
    }
}

/// An allocated console.
struct Console {
    tty: Arc<Tty>,
    /// KD_TEXT or KD_GRAPHICS.
    display_mode: u32,
    switch_mode: SwitchMode,
    /// The process VT_SETMODE was called by: VT_PROCESS's signals go to it.
    owner: Option<Pid>,
    /// The console a VT_PROCESS switch away from this one is waiting to
    /// reach (until the owner answers with VT_RELDISP).
    pending: Option<usize>,
}

/// A console's keyboard settings: Linux keeps them for every console
/// number, allocated or not.
#[derive(Clone, Copy)]
struct Keyboard {
    mode: u32,
    /// KDSKBLED's flags (low three bits) and default flags (next three).
    leds: u8,
}

struct Consoles {
    /// Indexed by console number - 1.
    allocated: [Option<Console>; MAX_CONSOLES],
    keyboards: [Keyboard; MAX_CONSOLES],
    /// The console in the foreground (number - 1).
    foreground: usize,
    /// Where kernel messages go (TIOCL_SETKMSGREDIRECT; 0: the foreground).
    kmsg_redirect: u8,
}

static CONSOLES: SpinLock<Consoles> = SpinLock::new(Consoles {
    allocated: [const { None }; MAX_CONSOLES],
    // Linux's vt.default_utf8 is on: keyboards start in Unicode mode.
    keyboards: [Keyboard { mode: K_UNICODE, leds: 0 }; MAX_CONSOLES],
    foreground: 0,
    kmsg_redirect: 0,
});

/// Woken after every switch (VT_WAITACTIVE).
static SWITCHED: WaitQueue = WaitQueue::new();

/// KDSIGACCEPT's registration (Linux's `vt_spawn_con`): the process that
/// asked for a signal when the keyboard's "spawn a console" key
/// (kbrequest, Alt-Up) is pressed, and which signal. systemd registers
/// for SIGWINCH at every boot. Kevlar has no keyboard to press it, like a
/// Linux without one: the registration is kept and never fires.
static SPAWN_CONSOLE: SpinLock<Option<(Pid, u32)>> = SpinLock::new(None);

fn new_console(index: usize) -> Console {
    // Linux's console driver: the standard settings, read as UTF-8.
    let mut termios = Termios::standard();
    termios.iflag |= abi::IUTF8;
    let winsize = Winsize { rows: ROWS, cols: COLUMNS, xpixel: 0, ypixel: 0 };
    let screen = Screen { text: SpinLock::new(VecDeque::new()) };
    let tty = Arc::new(Tty::new((TTY_MAJOR, index as u32 + 1), termios, winsize, Driver::VirtualConsole(screen)));
    Console { tty, display_mode: KD_TEXT, switch_mode: SwitchMode::default(), owner: None, pending: None }
}

impl Consoles {
    /// Allocates console `index` if it is not (Linux's `vc_allocate`).
    fn allocate(&mut self, index: usize) -> &mut Console {
        self.allocated[index].get_or_insert_with(|| new_console(index))
    }

    /// Whether a terminal file of console `index` is open (Linux's
    /// `vt_in_use`).
    fn in_use(&self, index: usize) -> bool {
        self.allocated[index].as_ref().is_some_and(|c| c.tty.state.lock().opens > 0)
    }

    /// Whether console `index` cannot be deallocated (Linux's `vt_busy`):
    /// open, in the foreground, or holding the selection. There is never
    /// a selection here, and Linux compares the console with the
    /// selection's (absent) owner, so an unallocated console counts as
    /// holding it: freeing one fails with EBUSY.
    fn busy(&self, index: usize) -> bool {
        self.in_use(index) || index == self.foreground || self.allocated[index].is_none()
    }

    /// Asks for a switch to console `to` (Linux's `set_console` and
    /// `change_console`): refused while the foreground console is in
    /// graphics mode under VT_AUTO; under VT_PROCESS its owner is sent the
    /// release signal and the switch waits for its VT_RELDISP.
    fn switch_to(&mut self, to: usize) {
        let from = self.foreground;
        if to == from || self.allocated[to].is_none() {
            return;
        }
        let Some(current) = self.allocated[from].as_mut() else { return };
        if current.switch_mode.mode == VT_AUTO && current.display_mode == KD_GRAPHICS {
            return;
        }
        if current.switch_mode.mode == VT_PROCESS {
            current.pending = Some(to);
            if signal_owner(current.owner, current.switch_mode.relsig) {
                return;
            }
            // The owner is gone: the console goes back to VT_AUTO (and
            // text mode), and the switch happens.
            reset(current);
        }
        self.complete_switch(to);
    }

    /// Makes console `to` the foreground one (Linux's
    /// `complete_change_console`); under VT_PROCESS its owner gets the
    /// acquire signal.
    fn complete_switch(&mut self, to: usize) {
        self.foreground = to;
        if let Some(console) = self.allocated[to].as_mut() {
            if console.switch_mode.mode == VT_PROCESS && !signal_owner(console.owner, console.switch_mode.acqsig) {
                reset(console);
            }
        }
        SWITCHED.wake_all();
        crate::fs::file::notify_pollers();
    }
}

/// Sends `sig` (0: none, only a check) to the owner of a VT_PROCESS
/// console, as Linux's `kill_pid(pid, sig, 1)`. Returns whether the
/// owner exists.
fn signal_owner(owner: Option<Pid>, sig: i16) -> bool {
    let Some(process) = owner.and_then(find_process) else { return false };
    if sig > 0 {
        let _ = signal::send_signal_info(&process, SigInfo::new(sig as u32, signal::SI_KERNEL));
    }
    true
}

/// Linux's `reset_vc`: text mode, VT_AUTO, no owner, no pending switch.
fn reset(console: &mut Console) {
    console.display_mode = KD_TEXT;
    console.switch_mode = SwitchMode::default();
    console.owner = None;
    console.pending = None;
}

/// The terminal of console `minor` (1..=63) for open(2), allocating the
/// console; minor 0 (/dev/tty0) is the foreground console.
pub(super) fn open(minor: u32) -> Arc<Tty> {
    let mut consoles = CONSOLES.lock();
    let index = if minor == 0 { consoles.foreground } else { minor as usize - 1 };
    consoles.allocate(index).tty.clone()
}

/// /sys/class/tty/tty0/active: the name of the foreground console.
pub fn active_name() -> alloc::string::String {
    alloc::format!("tty{}\n", CONSOLES.lock().foreground + 1)
}

/// Whether the caller may change console `tty` (Linux's `perm` in
/// `vt_ioctl`): it is its controlling terminal, or it holds
/// CAP_SYS_TTY_CONFIG.
fn permitted(process: &Process, tty: &Tty) -> bool {
    is_controlling(process, tty) || crate::process::access::capable(process, abi::CAP_SYS_TTY_CONFIG)
}

fn put_int(arg: usize, value: u32) -> Result<isize> {
    copy_to_user(arg, &value.to_le_bytes())?;
    Ok(0)
}

/// A console number argument of VT_ACTIVATE and VT_WAITACTIVE: 1..=63.
fn console_number(arg: usize) -> Result<usize> {
    if arg == 0 || arg > MAX_CONSOLES {
        return Err(Errno::ENXIO);
    }
    Ok(arg - 1)
}

/// The console ioctls of console `index`'s terminal (Linux's `vt_ioctl`);
/// None for requests that are not console ioctls.
pub(super) fn ioctl(tty: &Arc<Tty>, index: usize, request: u32, arg: usize) -> Option<Result<isize>> {
    let process = current()?.process.clone();
    let perm = permitted(&process, tty);
    let require = || if perm { Ok(()) } else { Err(Errno::EPERM) };
    let result = match request {
        ioctl::KDGKBTYPE => copy_to_user(arg, &[KB_101]).map(|_| 0),
        ioctl::KDSIGACCEPT => {
            if !perm || !crate::process::access::capable(&process, abi::CAP_KILL) {
                Err(Errno::EPERM)
            } else if arg == 0 || arg > abi::_NSIG as usize || arg == abi::SIGKILL as usize {
                Err(Errno::EINVAL)
            } else {
                *SPAWN_CONSOLE.lock() = Some((process.pid, arg as u32));
                Ok(0)
            }
        }
        ioctl::KDGETMODE => {
            let mode = CONSOLES.lock().allocated[index].as_ref().map_or(KD_TEXT, |c| c.display_mode);
            put_int(arg, mode)
        }
        ioctl::KDSETMODE => require().and_then(|_| {
            let mode = match arg as u64 {
                m if m == KD_GRAPHICS as u64 => KD_GRAPHICS,
                m if m == KD_TEXT as u64 || m == KD_TEXT0 as u64 || m == KD_TEXT1 as u64 => KD_TEXT,
                _ => return Err(Errno::EINVAL),
            };
            // Blanking the screen on entering graphics mode (and
            // unblanking on leaving it) shows nowhere here.
            CONSOLES.lock().allocate(index).display_mode = mode;
            Ok(0)
        }),
        ioctl::KDGKBMODE => put_int(arg, CONSOLES.lock().keyboards[index].mode),
        ioctl::KDSKBMODE => require().and_then(|_| {
            // Linux takes the mode as an unsigned int.
            let mode = arg as u32;
            if ![K_RAW, K_XLATE, K_MEDIUMRAW, K_UNICODE, K_OFF].contains(&mode) {
                return Err(Errno::EINVAL);
            }
            CONSOLES.lock().keyboards[index].mode = mode;
            // Input decoded in the old mode is dropped.
            tty.state.lock().ldisc.flush_input();
            tty.after_read();
            Ok(0)
        }),
        ioctl::KDGKBLED => {
            let leds = CONSOLES.lock().keyboards[index].leds;
            copy_to_user(arg, &[leds]).map(|_| 0)
        }
        ioctl::KDSKBLED => require().and_then(|_| {
            if arg & !0x77 != 0 {
                return Err(Errno::EINVAL);
            }
            CONSOLES.lock().keyboards[index].leds = arg as u8;
            Ok(0)
        }),
        ioctl::VT_GETMODE => {
            let mode = CONSOLES.lock().allocated[index].as_ref().map_or(SwitchMode::default(), |c| c.switch_mode);
            copy_to_user(arg, &mode.to_bytes()).map(|_| 0)
        }
        ioctl::VT_SETMODE => require().and_then(|_| {
            let raw = read_bytes::<8>(arg)?;
            if raw[0] != VT_AUTO && raw[0] != VT_PROCESS {
                return Err(Errno::EINVAL);
            }
            let mode = SwitchMode {
                mode: raw[0],
                waitv: raw[1],
                relsig: i16::from_le_bytes([raw[2], raw[3]]),
                acqsig: i16::from_le_bytes([raw[4], raw[5]]),
            };
            let mut consoles = CONSOLES.lock();
            let console = consoles.allocate(index);
            console.switch_mode = mode;
            console.owner = Some(process.pid);
            console.pending = None;
            Ok(0)
        }),
        ioctl::VT_GETSTATE => {
            // v_active, then v_state: bit 0 is /dev/tty0 (always open),
            // bit N console N in use; only 15 consoles fit.
            let (active, state) = {
                let consoles = CONSOLES.lock();
                let state = (0..15).filter(|&i| consoles.in_use(i)).fold(1u16, |s, i| s | (2 << i));
                (consoles.foreground as u16 + 1, state)
            };
            copy_to_user(arg, &active.to_le_bytes()).and_then(|_| copy_to_user(arg + 4, &state.to_le_bytes())).map(|_| 0)
        }
        ioctl::VT_OPENQRY => {
            let free = {
                let consoles = CONSOLES.lock();
                (0..MAX_CONSOLES).find(|&i| !consoles.in_use(i)).map_or(-1, |i| i as i32 + 1)
            };
            put_int(arg, free as u32)
        }
        ioctl::VT_ACTIVATE => require().and_then(|_| console_number(arg)).map(|to| {
            let mut consoles = CONSOLES.lock();
            consoles.allocate(to);
            consoles.switch_to(to);
            0
        }),
        ioctl::VT_WAITACTIVE => require().and_then(|_| console_number(arg)).and_then(|to| {
            SWITCHED.wait_until(|| Ok((CONSOLES.lock().foreground == to).then_some(0)))
        }),
        ioctl::VT_RELDISP => require().and_then(|_| release_display(index, arg)),
        ioctl::VT_DISALLOCATE => disallocate(arg),
        ioctl::TIOCLINUX => linux_subcode(&process, tty, arg),
        _ => return None,
    };
    Some(result)
}

/// VT_RELDISP (Linux's `vt_reldisp`): the owner of a VT_PROCESS console
/// lets a switch away from it go on (`answer` nonzero) or refuses it (0),
/// or acknowledges acquiring it (VT_ACKACQ).
fn release_display(index: usize, answer: usize) -> Result<isize> {
    let mut consoles = CONSOLES.lock();
    let console = consoles.allocated[index].as_mut().ok_or(Errno::EINVAL)?;
    if console.switch_mode.mode != VT_PROCESS {
        return Err(Errno::EINVAL);
    }
    let Some(to) = console.pending.take() else {
        return if answer == VT_ACKACQ { Ok(0) } else { Err(Errno::EINVAL) };
    };
    if answer == 0 {
        return Ok(0);
    }
    consoles.allocate(to);
    consoles.complete_switch(to);
    Ok(0)
}

/// VT_DISALLOCATE: frees console `arg` (1..=63), or with 0 every console
/// but the first that is neither open nor in the foreground. Console 1 is
/// never freed; a busy one fails with EBUSY.
fn disallocate(arg: usize) -> Result<isize> {
    if arg > MAX_CONSOLES {
        return Err(Errno::ENXIO);
    }
    let mut consoles = CONSOLES.lock();
    if arg == 0 {
        for index in 1..MAX_CONSOLES {
            if !consoles.busy(index) {
                consoles.allocated[index] = None;
            }
        }
        return Ok(0);
    }
    let index = arg - 1;
    if consoles.busy(index) {
        return Err(Errno::EBUSY);
    }
    if index != 0 {
        consoles.allocated[index] = None;
    }
    Ok(0)
}

/// TIOCLINUX (Linux's `tioclinux`): the byte at `arg` selects what to do.
/// The caller needs the console as its controlling terminal or
/// CAP_SYS_ADMIN. Selection, scrolling and blanking subcodes have nothing
/// to act on here and fail as unknown ones do (EINVAL).
fn linux_subcode(process: &Process, tty: &Tty, arg: usize) -> Result<isize> {
    let admin = crate::process::access::capable(process, abi::CAP_SYS_ADMIN);
    if !is_controlling(process, tty) && !admin {
        return Err(Errno::EPERM);
    }
    let [subcode] = read_bytes::<1>(arg)?;
    match subcode {
        TIOCL_UNBLANKSCREEN => Ok(0),
        // No key is held, no program asked for mouse reports.
        TIOCL_GETSHIFTSTATE | TIOCL_GETMOUSEREPORTING => copy_to_user(arg, &[0]).map(|_| 0),
        TIOCL_GETKMSGREDIRECT => {
            let redirect = CONSOLES.lock().kmsg_redirect;
            copy_to_user(arg, &[redirect]).map(|_| 0)
        }
        TIOCL_SETKMSGREDIRECT => {
            if !admin {
                return Err(Errno::EPERM);
            }
            let [target] = read_bytes::<1>(arg + 1)?;
            CONSOLES.lock().kmsg_redirect = target;
            Ok(0)
        }
        TIOCL_GETFGCONSOLE => Ok(CONSOLES.lock().foreground as isize),
        _ => Err(Errno::EINVAL),
    }
}

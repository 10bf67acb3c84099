//! Pseudo-terminals. Opening /dev/ptmx creates a pair: the master file
//! the opener gets, and a slave terminal (a [`Tty`] with the same line
//! discipline as the console) that appears as /dev/pts/N once devpts is
//! mounted. What the master writes is the slave's input; what the slave
//! writes, after output processing, is what the master reads.
//!
//! As on Linux, the slave starts locked (TIOCSPTLCK; musl's `unlockpt`
//! clears it); when the last slave file closes the master reads EIO once
//! its buffer is drained and polls POLLHUP; when the master closes the
//! slave hangs up and its /dev/pts entry goes away.

use alloc::collections::VecDeque;
use alloc::format;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_tty::{Termios, Winsize};
use kevlar_vfs::{Stat, Timespec};
use linux_raw_sys::general as abi;
use linux_raw_sys::ioctl;

use super::{Driver, Tty, PTS_MAJOR};
use crate::error::{Errno, Result};
use crate::fs::file::{FileOps, OpenFile, PollEvents, POLLHUP, POLLIN, POLLOUT};
use crate::process::current;
use crate::process::wait_queue::WaitQueue;
use crate::uaccess::copy_to_user;

/// How much slave output waits for the master to read it before slave
/// writers block.
const OUTPUT_CAPACITY: usize = 16384;
/// The most pairs at once (Linux's default /proc/sys/kernel/pty/max).
const MAX_PTYS: usize = 4096;

/// One pseudo-terminal pair.
pub struct Pty {
    /// N of /dev/pts/N.
    pub index: u32,
    /// The slave terminal.
    pub slave: Arc<Tty>,
    state: SpinLock<MasterState>,
    /// The master's readers and writers wait here.
    pub(super) wait: WaitQueue,
}

struct MasterState {
    /// Slave output the master has not read yet.
    output: VecDeque<u8>,
    /// TIOCSPTLCK: the slave cannot be opened.
    locked: bool,
    master_open: bool,
    /// Every slave file closed since the slave was last opened (Linux's
    /// TTY_OTHER_CLOSED on the master).
    slave_closed: bool,
    /// TIOCVHANGUP on the master: its files read end of file, fail writes
    /// and ioctls (Linux's hung_up_tty_fops); the slave is not touched.
    hung_up: bool,
    /// The /dev/pts/N node's attributes.
    node: NodeAttrs,
}

/// The attributes of a /dev/pts/N node.
#[derive(Clone, Copy, Debug)]
pub struct NodeAttrs {
    /// Permission bits.
    pub mode: u32,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// When the pair was made (also mtime and atime).
    pub ctime: Timespec,
}

/// Live pairs by index; a closed master's slot is reused (lowest first).
static PTYS: SpinLock<Vec<Option<Arc<Pty>>>> = SpinLock::new(Vec::new());

impl Pty {
    /// Room left for slave output.
    pub(super) fn output_room(&self) -> usize {
        OUTPUT_CAPACITY.saturating_sub(self.state.lock().output.len())
    }

    /// Queues slave output for the master (echo included); what does not
    /// fit is dropped (writers check the room first; echo cannot wait).
    pub(super) fn push_output(&self, bytes: &[u8]) {
        {
            let mut state = self.state.lock();
            let room = OUTPUT_CAPACITY.saturating_sub(state.output.len());
            state.output.extend(bytes.iter().take(room));
        }
        self.wait.wake_all();
        super::notify_ready();
    }

    /// Whether the master is still open.
    pub(super) fn master_is_open(&self) -> bool {
        self.state.lock().master_open
    }

    /// The last slave file closed.
    pub(super) fn slave_closed(&self) {
        self.state.lock().slave_closed = true;
        self.wait.wake_all();
        super::notify_ready();
    }

    /// Returns the /dev/pts/N node's attributes.
    pub fn node_attrs(&self) -> NodeAttrs {
        self.state.lock().node
    }

    /// Changes the /dev/pts/N node's attributes (chmod, chown).
    pub fn set_node_attrs(&self, attrs: NodeAttrs) {
        self.state.lock().node = attrs;
    }

    fn close_master(&self) {
        {
            let mut state = self.state.lock();
            state.master_open = false;
            state.output.clear();
        }
        {
            let mut ptys = PTYS.lock();
            if let Some(slot) = ptys.get_mut(self.index as usize) {
                *slot = None;
            }
        }
        // Linux's tty_vhangup of the slave: its files hang up and its
        // session leader gets SIGHUP and SIGCONT.
        self.slave.hangup(false);
        self.wait.wake_all();
    }
}

/// Returns the pair with index `index`.
pub fn find(index: u32) -> Option<Arc<Pty>> {
    PTYS.lock().get(index as usize).and_then(|slot| slot.clone())
}

/// Returns the indices of the live pairs, in order.
pub fn indices() -> Vec<u32> {
    PTYS.lock().iter().enumerate().filter(|(_, slot)| slot.is_some()).map(|(i, _)| i as u32).collect()
}

/// The device number of /dev/pts/`index`.
fn slave_rdev(index: u32) -> (u32, u32) {
    (PTS_MAJOR + index / 256, index % 256)
}

/// /dev/ptmx: creates a pair and returns its master file.
pub fn open_master(stat: &Stat) -> Result<Arc<dyn FileOps>> {
    let (uid, gid) = current().map_or((0, 0), |t| {
        let creds = t.process.creds.lock();
        (creds.euid, creds.egid)
    });
    let options = super::devpts::options();
    let node = NodeAttrs {
        mode: options.mode,
        uid: options.uid.unwrap_or(uid),
        gid: options.gid.unwrap_or(gid),
        ctime: crate::clock::now(),
    };
    let pty = {
        let mut ptys = PTYS.lock();
        let index = match ptys.iter().position(Option::is_none) {
            Some(free) => free,
            None if ptys.len() < MAX_PTYS => {
                ptys.push(None);
                ptys.len() - 1
            }
            None => return Err(Errno::ENOSPC),
        };
        let pty = Arc::new_cyclic(|weak| Pty {
            index: index as u32,
            slave: Arc::new(Tty::new(slave_rdev(index as u32), Termios::pty_slave(), Winsize::default(), Driver::PtySlave(weak.clone()))),
            state: SpinLock::new(MasterState {
                output: VecDeque::new(),
                locked: true,
                master_open: true,
                slave_closed: false,
                hung_up: false,
                node,
            }),
            wait: WaitQueue::new(),
        });
        ptys[index] = Some(pty.clone());
        pty
    };
    Ok(Arc::new(MasterFile { pty, stat: stat.clone() }))
}

/// /dev/pts/N: the slave terminal of pair N, unless it is locked (EIO) or
/// gone (EIO, as Linux for a node that outlived its pair).
pub fn open_slave(index: u32) -> Result<Arc<Tty>> {
    let pty = find(index).ok_or(Errno::EIO)?;
    let mut state = pty.state.lock();
    if state.locked || !state.master_open {
        return Err(Errno::EIO);
    }
    state.slave_closed = false;
    Ok(pty.slave.clone())
}

/// The master side of a pair.
struct MasterFile {
    pty: Arc<Pty>,
    stat: Stat,
}

impl MasterFile {
    /// TIOCGPTPEER: opens the slave as a new fd with `flags`.
    fn open_peer(&self, flags: u32) -> Result<isize> {
        let allowed = abi::O_ACCMODE | abi::O_NOCTTY | abi::O_NONBLOCK | abi::O_CLOEXEC;
        if flags & !allowed != 0 {
            return Err(Errno::EINVAL);
        }
        let thread = current().ok_or(Errno::EIO)?;
        let index = self.pty.index;
        let stat = super::devpts::slave_stat(&self.pty);
        let (major, minor) = slave_rdev(index);
        let ops = super::open(major, minor, &stat, flags)?.ok_or(Errno::EIO)?;
        let path = format!("/dev/pts/{}", index).into_bytes();
        let file = OpenFile::new(ops, flags & !abi::O_CLOEXEC, path);
        let fd = thread.process.files.lock().lock().insert(file, flags & abi::O_CLOEXEC != 0)?;
        Ok(fd as isize)
    }
}

impl FileOps for MasterFile {
    fn read(&self, file: &OpenFile, _offset: u64, buf: &mut [u8]) -> Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            {
                let mut state = self.pty.state.lock();
                if state.hung_up {
                    return Ok(0);
                }
                if !state.output.is_empty() {
                    let n = buf.len().min(state.output.len());
                    for (slot, byte) in buf.iter_mut().zip(state.output.drain(..n)) {
                        *slot = byte;
                    }
                    drop(state);
                    // Room for the slave's writers.
                    self.pty.slave.write_wait.wake_all();
                    super::notify_ready();
                    return Ok(n);
                }
                if state.slave_closed {
                    return Err(Errno::EIO);
                }
            }
            if file.nonblocking() {
                return Err(Errno::EAGAIN);
            }
            self.pty.wait.wait_until(|| {
                let state = self.pty.state.lock();
                Ok((!state.output.is_empty() || state.slave_closed || state.hung_up).then_some(()))
            })?;
        }
    }

    fn write(&self, file: &OpenFile, _offset: u64, buf: &[u8]) -> Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            if self.pty.state.lock().hung_up {
                return if done > 0 { Ok(done) } else { Err(Errno::EIO) };
            }
            let taken = self.pty.slave.receive_input(&buf[done..]);
            done += taken;
            if done == buf.len() {
                break;
            }
            if taken == 0 {
                // The slave's input buffer is full until it reads.
                if file.nonblocking() {
                    return if done > 0 { Ok(done) } else { Err(Errno::EAGAIN) };
                }
                if let Err(e) = self.pty.wait.wait_until(|| Ok((!self.pty.slave.input_full() || self.pty.state.lock().hung_up).then_some(()))) {
                    return if done > 0 { Ok(done) } else { Err(e) };
                }
            }
        }
        Ok(done)
    }

    fn stat(&self) -> Result<Stat> {
        Ok(self.stat.clone())
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn is_pollable(&self) -> bool {
        true
    }

    fn poll_counts(&self) -> (u64, u64) {
        let events = super::ready_events();
        (events, events)
    }

    fn poll(&self) -> PollEvents {
        let mut events = 0;
        {
            let state = self.pty.state.lock();
            if state.hung_up {
                return super::HUNG_UP_EVENTS;
            }
            if !state.output.is_empty() {
                events |= POLLIN;
            }
            if state.slave_closed {
                events |= POLLHUP;
            }
        }
        if !self.pty.slave.input_full() {
            events |= POLLOUT;
        }
        events
    }

    fn ioctl(&self, _file: &OpenFile, request: u32, arg: usize) -> Result<isize> {
        if self.pty.state.lock().hung_up {
            return Err(if request == ioctl::TIOCSPGRP { Errno::ENOTTY } else { Errno::EIO });
        }
        match request {
            ioctl::TIOCGPTN => {
                copy_to_user(arg, &self.pty.index.to_le_bytes())?;
                Ok(0)
            }
            ioctl::TIOCSPTLCK => {
                let lock = i32::from_le_bytes(crate::uaccess::read_bytes::<4>(arg)?);
                self.pty.state.lock().locked = lock != 0;
                Ok(0)
            }
            ioctl::TIOCGPTLCK => {
                let locked = self.pty.state.lock().locked as i32;
                copy_to_user(arg, &locked.to_le_bytes())?;
                Ok(0)
            }
            ioctl::TIOCGPTPEER => self.open_peer(arg as u32),
            ioctl::TIOCVHANGUP => {
                // The master itself hangs up (tty_vhangup of the file's own
                // terminal, not the slave).
                let root = current().is_some_and(|t| crate::process::access::capable(&t.process, abi::CAP_SYS_ADMIN));
                if !root {
                    return Err(Errno::EPERM);
                }
                self.pty.state.lock().hung_up = true;
                self.pty.wait.wake_all();
                super::notify_ready();
                Ok(0)
            }
            ioctl::TIOCSIG => {
                // Signal the slave's foreground group, as if typed.
                let sig = arg as u32;
                if sig == 0 || sig as usize >= crate::process::signal::NSIG {
                    return Err(Errno::EINVAL);
                }
                if let Some(pgrp) = self.pty.slave.state.lock().pgrp {
                    super::signal_group(pgrp, sig);
                }
                Ok(0)
            }
            ioctl::FIONREAD => {
                let count = self.pty.state.lock().output.len() as i32;
                copy_to_user(arg, &count.to_le_bytes())?;
                Ok(0)
            }
            ioctl::TCFLSH => {
                // The master's input is the slave's output.
                match arg as u32 {
                    abi::TCIFLUSH | abi::TCIOFLUSH => {
                        self.pty.state.lock().output.clear();
                        self.pty.slave.write_wait.wake_all();
                    }
                    abi::TCOFLUSH => {}
                    _ => return Err(Errno::EINVAL),
                }
                Ok(0)
            }
            // Everything else acts on the slave (Linux's real_tty).
            _ => self.pty.slave.clone().ioctl(None, request, arg, true),
        }
    }

    fn release(&self, _file: &OpenFile) {
        self.pty.close_master();
    }
}

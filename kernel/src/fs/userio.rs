//! Reads and writes that copy straight between a file's pages and user
//! memory (one copy, as Linux's `copy_page_to_iter`/`copy_page_from_iter`),
//! for files that keep their data in pages (tmpfs, the page cache of ext2
//! and ext4).
//!
//! The file system hands each page to a [`UserIo`] while it holds its own
//! locks, so the copy must not wait for a page fault to be resolved (the
//! resolver may need those locks: a buffer mapped from the same file). The
//! copies therefore stop at the first user page that is not mapped for
//! the access; the caller then drops every lock, faults that page in and
//! goes on from there (Linux's `fault_in_iov_iter_*` and retry). A buffer
//! that cannot be faulted in ends the call with the bytes done, or EFAULT
//! when there are none.

use core::any::Any;

use kevlar_platform::x86::user as platform_user;
use kevlar_vfs::{DataPage, PageIo, PAGE_SIZE};

use super::file::OpenFile;
use super::pages::FramePage;
use crate::error::{Errno, Result};
use crate::process::Thread;

/// Bytes moved per step of a large request: between steps the thread
/// checks for fatal signals and lets others run.
const STEP: usize = 64 * 1024;

/// Times in a row a fault-in may succeed without the copy moving on
/// before the call gives up with EFAULT (a mapping that resolves but
/// never stays mapped).
const MAX_FRUITLESS_FAULTS: u32 = 8;

/// A user buffer, one or several vectors (readv, writev), as the file
/// system sees it: `read` copies out of the pages into it, `write` from
/// it into the pages, vector after vector.
pub struct UserIo<'v> {
    vecs: &'v [(usize, usize)],
    /// The vector the next byte goes to or comes from, and how far into
    /// it.
    seg: usize,
    off: usize,
    write: bool,
    /// The copy stopped at a user page not mapped for the access.
    faulted: bool,
}

impl<'v> UserIo<'v> {
    /// The buffer from byte `done` of the vectors on.
    fn at(vecs: &'v [(usize, usize)], done: usize, write: bool) -> Self {
        let mut io = UserIo { vecs, seg: 0, off: done, write, faulted: false };
        // `off` may run past the first vectors: carried into the next.
        while io.seg < vecs.len() && io.off >= vecs[io.seg].1 {
            io.off -= vecs[io.seg].1;
            io.seg += 1;
        }
        io
    }

    /// Moves past vectors with nothing left in them.
    fn skip_empty(&mut self) {
        while self.seg < self.vecs.len() && self.off >= self.vecs[self.seg].1 {
            self.seg += 1;
            self.off = 0;
        }
    }

    /// The user address of the next byte and the end of its vector (None
    /// once every vector is full).
    fn next_span(&self) -> Option<(usize, usize)> {
        let &(base, len) = self.vecs.get(self.seg)?;
        Some((base + self.off, base + len))
    }

    /// Copies `len` bytes at most, vector by vector, with `copy(addr,
    /// done, n)` moving `n` bytes between user address `addr` and the
    /// source's bytes from `done` on; stops at a fault.
    fn each_span(&mut self, len: usize, mut copy: impl FnMut(usize, usize, usize) -> core::result::Result<usize, platform_user::UserFault>) -> usize {
        let mut done = 0;
        while done < len {
            let Some((addr, end)) = self.next_span() else { break };
            let n = (end - addr).min(len - done);
            let moved = copy(addr, done, n).unwrap_or(0);
            done += moved;
            self.off += moved;
            self.skip_empty();
            if moved < n {
                self.faulted = true;
                break;
            }
        }
        done
    }
}

fn frame_of(page: &dyn DataPage) -> Option<&FramePage> {
    let any: &dyn Any = page.as_any();
    any.downcast_ref::<FramePage>()
}

impl PageIo for UserIo<'_> {
    fn page(&mut self, page: &dyn DataPage, offset: usize, len: usize) -> usize {
        let len = len.min(PAGE_SIZE.saturating_sub(offset));
        match (frame_of(page), self.write) {
            (Some(frame), false) => self.each_span(len, |addr, done, n| platform_user::copy_page_to_user_nofault(frame.frame(), offset + done, addr, n)),
            (Some(frame), true) => self.each_span(len, |addr, done, n| platform_user::copy_page_from_user_nofault(frame.frame(), offset + done, addr, n)),
            // A page not in a frame (none in the kernel's file systems
            // today): through a buffer on the stack.
            (None, false) => {
                let mut tmp = [0u8; PAGE_SIZE];
                page.read(offset, &mut tmp[..len]);
                self.each_span(len, |addr, done, n| platform_user::copy_to_user_nofault(addr, &tmp[done..done + n]))
            }
            (None, true) => {
                let mut tmp = [0u8; PAGE_SIZE];
                let n = self.each_span(len, |addr, done, n| platform_user::copy_from_user_nofault(&mut tmp[done..done + n], addr));
                page.write(offset, &tmp[..n]);
                n
            }
        }
    }

    fn zeros(&mut self, len: usize) -> usize {
        if self.write {
            return 0;
        }
        static ZEROS: [u8; 512] = [0; 512];
        let mut done = 0;
        while done < len && !self.faulted {
            let step = (len - done).min(ZEROS.len());
            let n = self.each_span(step, |addr, _, n| platform_user::copy_to_user_nofault(addr, &ZEROS[..n]));
            done += n;
            if n < step {
                break;
            }
        }
        done
    }
}

/// Where a direct transfer happens: at a given offset (pread, pwrite),
/// or at the file position, which it advances (read, write).
#[derive(Clone, Copy)]
pub enum At {
    /// pread/pwrite's offset (for a write on an O_APPEND file, the end).
    Offset(u64),
    /// The file position.
    Position,
}

/// Reads up to `len` bytes of `file` to user address `buf` straight from
/// its pages; `None` when the file does not keep its data in pages (the
/// caller copies through a kernel buffer). Returns the bytes read: fewer
/// at the end of the file, or when a fatal signal or a bad part of the
/// buffer stops a large request after some bytes.
pub fn read(thread: &Thread, file: &OpenFile, at: At, buf: usize, len: usize) -> Option<Result<usize>> {
    transfer(thread, file, at, &[(buf, len)], len, false)
}

/// Writes `len` bytes from user address `buf` straight into the pages of
/// `file`, as [`read`] does the other way.
pub fn write(thread: &Thread, file: &OpenFile, at: At, buf: usize, len: usize) -> Option<Result<usize>> {
    transfer(thread, file, at, &[(buf, len)], len, true)
}

/// [`read`] into the user vectors `vecs` (readv), which hold `len` bytes
/// together: one pass over the pages, the vectors filled in order.
pub fn read_vectored(thread: &Thread, file: &OpenFile, at: At, vecs: &[(usize, usize)], len: usize) -> Option<Result<usize>> {
    transfer(thread, file, at, vecs, len, false)
}

/// [`write`] from the user vectors `vecs` (writev), which hold `len`
/// bytes together.
pub fn write_vectored(thread: &Thread, file: &OpenFile, at: At, vecs: &[(usize, usize)], len: usize) -> Option<Result<usize>> {
    transfer(thread, file, at, vecs, len, true)
}

fn transfer(thread: &Thread, file: &OpenFile, at: At, vecs: &[(usize, usize)], len: usize, write: bool) -> Option<Result<usize>> {
    let mut done = 0usize;
    let mut fruitless = 0;
    let mut first = true;
    while done < len {
        if done > 0 && !thread.checkpoint() {
            break;
        }
        let want = (len - done).min(STEP);
        // Placed by the bytes the file system says it moved.
        let mut io = UserIo::at(vecs, done, write);
        let result = match (at, write) {
            (At::Offset(p), false) => file.ops.read_pages(file, p + done as u64, want, &mut io),
            (At::Offset(p), true) => {
                // Linux's quirk: pwrite on an O_APPEND file appends.
                let pos = if file.flags() & linux_raw_sys::general::O_APPEND != 0 {
                    match file.ops.size() {
                        Ok(size) => size,
                        Err(e) => return Some(if done > 0 { Ok(done) } else { Err(e) }),
                    }
                } else {
                    p + done as u64
                };
                file.ops.write_pages(file, pos, want, &mut io)
            }
            (At::Position, false) => file.read_pages(want, &mut io),
            (At::Position, true) => file.write_pages(want, &mut io),
        };
        let n = match result {
            None if first => return None,
            // The file cannot change kind between steps.
            None => break,
            Some(Ok(n)) => n,
            Some(Err(_)) if done > 0 => break,
            Some(Err(e)) => return Some(Err(e)),
        };
        first = false;
        done += n;
        if io.faulted {
            // No lock is held here: bring the page in and go on.
            if n > 0 {
                fruitless = 0;
            } else {
                fruitless += 1;
            }
            let Some((addr, end)) = io.next_span() else { break };
            if fruitless > MAX_FRUITLESS_FAULTS || !fault_in(addr, end, !write) {
                return Some(if done > 0 { Ok(done) } else { Err(Errno::EFAULT) });
            }
            continue;
        }
        if n < want {
            break;
        }
    }
    Some(Ok(done))
}

/// Faults in the user page holding `addr` (for a store when `store`); a
/// quadword copy stops at the start of the word that faulted, which may
/// begin up to 7 bytes before the page that is missing, so that page is
/// faulted in too when the buffer (up to `end`) reaches it.
fn fault_in(addr: usize, end: usize, store: bool) -> bool {
    if !crate::mm::user_fault::fault_in(addr, store) {
        return false;
    }
    let next = (addr | (PAGE_SIZE - 1)) + 1;
    if next - addr < 8 && next < end {
        return crate::mm::user_fault::fault_in(next, store);
    }
    true
}

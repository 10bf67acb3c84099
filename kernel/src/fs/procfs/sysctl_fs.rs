//! /proc/sys/fs's own files (its directories are in `system.rs`): the
//! limits `crate::fs::sysctl` keeps and enforces, the counts of open
//! files and in-memory inodes, and the protected_* switches of path walks.
//! Values are parsed and bounded as Linux's proc_dointvec_minmax and
//! proc_doulongvec_minmax do (EINVAL outside); vectors print with tabs.

use alloc::format;
use alloc::string::String;
use core::sync::atomic::{AtomicU32, Ordering};

use kevlar_vfs::FileType;

use super::{setting_file, text_file};
use crate::error::{Errno, Result};
use crate::fs::synth::Table;
use crate::fs::sysctl;

/// The first number of a written setting (Linux's proc_get_long: blanks
/// before it, an optional sign, up to a newline or NUL).
fn parse(buf: &[u8]) -> Result<i128> {
    let end = buf.iter().position(|&b| b == b'\n' || b == 0).unwrap_or(buf.len());
    let text = core::str::from_utf8(&buf[..end]).map_err(|_| Errno::EINVAL)?;
    let word = text.split_ascii_whitespace().next().ok_or(Errno::EINVAL)?;
    word.parse::<i128>().map_err(|_| Errno::EINVAL)
}

/// A value written to a setting bounded by `min..=max`.
fn bounded(buf: &[u8], min: i128, max: i128) -> Result<i128> {
    let v = parse(buf)?;
    if v < min || v > max {
        return Err(Errno::EINVAL);
    }
    Ok(v)
}

/// In-memory inodes (the tmpfs family's nodes, every one of which has a
/// name: the dentry count too) plus the open files' (pipes, sockets...).
fn memory_inodes() -> u64 {
    super::system::tmpfs_usages().iter().map(|u| u.inodes).sum()
}

/// A 0..=max switch (proc_dointvec_minmax), mode `perm`.
fn switch(table: &mut Table, name: &'static [u8], ino: u64, perm: u32, value: &'static AtomicU32, max: i128) {
    table.add(name, FileType::Regular, ino, move |_| {
        Ok(setting_file(
            ino,
            perm,
            move || Ok(format!("{}\n", value.load(Ordering::Relaxed))),
            move |buf| {
                value.store(bounded(buf, 0, max)? as u32, Ordering::Relaxed);
                Ok(buf.len())
            },
        ))
    });
}

/// Adds the files to /proc/sys/fs's table, numbered from `first`
/// (24 numbers).
pub(super) fn add_files(table: &mut Table, first: u64) {
    let n = first;
    table.add(b"file-max", FileType::Regular, n, move |_| {
        Ok(setting_file(
            n,
            0o644,
            || Ok(format!("{}\n", sysctl::file_max())),
            |buf| {
                sysctl::set_file_max(bounded(buf, 0, i64::MAX as i128)? as u64);
                Ok(buf.len())
            },
        ))
    });
    let n = first + 1;
    table.add(b"file-nr", FileType::Regular, n, move |_| Ok(text_file(n, || Ok(format!("{}\t0\t{}\n", sysctl::nr_files(), sysctl::file_max())))));
    let n = first + 2;
    table.add(b"nr_open", FileType::Regular, n, move |_| {
        Ok(setting_file(
            n,
            0o644,
            || Ok(format!("{}\n", sysctl::nr_open())),
            |buf| {
                sysctl::set_nr_open(bounded(buf, sysctl::NR_OPEN_MIN as i128, sysctl::NR_OPEN_MAX as i128)? as usize);
                Ok(buf.len())
            },
        ))
    });
    let n = first + 3;
    table.add(b"pipe-max-size", FileType::Regular, n, move |_| {
        Ok(setting_file(
            n,
            0o644,
            || Ok(format!("{}\n", sysctl::pipe_max_size())),
            |buf| {
                // An unsigned int (proc_douintvec: no sign), rounded.
                sysctl::set_pipe_max_size(bounded(buf, 0, u32::MAX as i128)? as u64)?;
                Ok(buf.len())
            },
        ))
    });
    for (i, hard) in [(4u64, true), (5, false)] {
        let n = first + i;
        let name: &'static [u8] = if hard { b"pipe-user-pages-hard" } else { b"pipe-user-pages-soft" };
        table.add(name, FileType::Regular, n, move |_| {
            Ok(setting_file(
                n,
                0o644,
                move || Ok(format!("{}\n", if hard { sysctl::pipe_user_pages_hard() } else { sysctl::pipe_user_pages_soft() })),
                move |buf| {
                    sysctl::set_pipe_user_pages(hard, bounded(buf, 0, u64::MAX as i128)? as u64);
                    Ok(buf.len())
                },
            ))
        });
    }
    switch(table, b"protected_symlinks", first + 6, 0o644, &sysctl::PROTECTED_SYMLINKS, 1);
    switch(table, b"protected_hardlinks", first + 7, 0o644, &sysctl::PROTECTED_HARDLINKS, 1);
    switch(table, b"protected_fifos", first + 8, 0o644, &sysctl::PROTECTED_FIFOS, 2);
    switch(table, b"protected_regular", first + 9, 0o644, &sysctl::PROTECTED_REGULAR, 2);
    let counts: [(&'static [u8], fn() -> String); 3] = [
        // nr_dentry, nr_unused, age_limit, want_pages, nr_negative, dummy.
        (b"dentry-state", || format!("{}\t0\t45\t0\t0\t0\n", memory_inodes())),
        // nr_inodes, nr_free_inodes.
        (b"inode-nr", || format!("{}\t0\n", memory_inodes() + sysctl::nr_files() as u64)),
        (b"inode-state", || format!("{}\t0\t0\t0\t0\t0\t0\n", memory_inodes() + sysctl::nr_files() as u64)),
    ];
    for (i, (name, text)) in counts.into_iter().enumerate() {
        let n = first + 11 + i as u64;
        table.add(name, FileType::Regular, n, move |_| Ok(text_file(n, move || Ok(text()))));
    }
    // Native AIO's events in use and their limit (fs/aio.c).
    let n = first + 14;
    table.add(b"aio-nr", FileType::Regular, n, move |_| Ok(text_file(n, || Ok(format!("{}\n", crate::aio::aio_nr())))));
    let n = first + 15;
    table.add(b"aio-max-nr", FileType::Regular, n, move |_| {
        Ok(setting_file(
            n,
            0o644,
            || Ok(format!("{}\n", crate::aio::aio_max_nr())),
            |buf| {
                crate::aio::set_aio_max_nr(bounded(buf, 0, u64::MAX as i128)? as u64);
                Ok(buf.len())
            },
        ))
    });
}

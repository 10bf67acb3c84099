//! The virtual file system layer of Kevlar.
//!
//! This crate defines what every file system provides and what the kernel's
//! file system calls build on, without depending on any hardware:
//!
//! - [`Errno`] and [`Result`]: Linux error numbers;
//! - [`BlockDevice`]: what disk file systems read and write through
//!   ([`MemDisk`] keeps one in memory);
//! - [`Inode`]: one object-safe trait for every kind of node, with defaults
//!   that fail the way Linux does for operations a node lacks, and [`Clock`]
//!   for timestamps;
//! - plain data: [`FileType`], [`Timespec`], [`Stat`], [`DirEntry`],
//!   [`RenameFlags`], [`SetAttr`];
//! - path resolution with Linux semantics: [`walk`], [`walk_parent`],
//!   [`walk_open`] over a [`MountTable`];
//! - permission checks: [`Credentials`], [`check_access`], [`check_sticky`],
//!   [`check_owner`].
//!
//! Names and paths are byte strings: Linux allows any bytes but `/` and NUL.
//! All ABI numbers (errno values, mode bits, flags) come from
//! `linux-raw-sys`.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod block;
mod errno;
mod inode;
mod page;
mod path;
mod perm;
mod types;

pub use block::{BlockDevice, MemDisk};
pub use errno::{Errno, Result};
pub use inode::{same_inode, Clock, DirEntryRef, Inode, ManualClock};
pub use page::{DataPage, HeapPages, PageIo, PageSource, SliceIn, SliceOut, PAGE_SIZE};
pub use path::{
    has_trailing_slash, split_components, walk, walk_mnt, walk_open, walk_open_mnt, walk_open_traced, walk_parent, walk_parent_mnt, Components, LastComponent,
    MountId, MountTable, NoMounts, NO_MOUNT, OpenLookup, ParentLookup, WalkContext, WalkFlags, MAX_SYMLINK_FOLLOWS,
    NAME_MAX, PATH_MAX,
};
pub use perm::{check_access, check_owner, check_sticky, Access, Credentials, IdScope};
pub use types::{DirEntry, FileType, MappedRun, RenameFlags, SetAttr, Stat, Timespec};

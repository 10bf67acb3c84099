//! Error numbers returned to user space: the same `Errno` type the VFS
//! crates use, so filesystem errors pass through without conversion.

pub use kevlar_vfs::{Errno, Result};

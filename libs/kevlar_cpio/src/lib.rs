//! Initramfs reader: "newc" cpio archives, optionally gzip-compressed.
//!
//! The boot loader hands the kernel an initramfs image. Linux accepts a
//! sequence of pieces, each either an uncompressed cpio archive or a
//! compressed stream whose output is itself one or more cpio archives, with
//! runs of zero bytes allowed between pieces (`init/initramfs.c`,
//! `unpack_to_rootfs`). This crate reproduces that in two steps:
//!
//! 1. [`decompress_if_needed`] turns the image into plain cpio data. An image
//!    without compressed parts is returned borrowed, so the common
//!    uncompressed case copies nothing.
//! 2. [`entries`] walks that data and yields one [`Entry`] per archive
//!    member, borrowing names and contents from the input (zero-copy).
//!
//! Hard links need a little help from the caller, see [`hard_link_groups`].
//!
//! Everything here parses untrusted bytes: every offset is computed with
//! checked arithmetic and every failure is a [`CpioError`], never a panic.
//!
//! # The newc format
//!
//! Each member is a 110-byte ASCII header, the NUL-terminated name, zero
//! padding to a multiple of 4 (counted from the start of the header), the
//! file data and zero padding to a multiple of 4 again. The header is the
//! magic `070701` (or `070702`, whose only difference is a checksum field that
//! Linux, and this crate, ignore) followed by thirteen 8-digit hexadecimal
//! fields. An archive ends with a member named `TRAILER!!!`.
//!
//! # Example
//!
//! ```
//! # fn main() -> Result<(), kevlar_cpio::CpioError> {
//! # let image: &[u8] = &[];
//! let data = kevlar_cpio::decompress_if_needed(image)?;
//! for entry in kevlar_cpio::entries(&data) {
//!     let entry = entry?;
//!     match entry.file_type() {
//!         kevlar_cpio::FileType::Directory => { /* mkdir entry.name */ }
//!         _ => { /* ... */ }
//!     }
//! }
//! # Ok(())
//! # }
//! ```

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod gzip;
mod newc;

#[cfg(test)]
mod tests;

pub use gzip::{decompress_if_needed, decompress_with_limit, DEFAULT_MAX_UNPACKED};
pub use newc::{entries, hard_link_groups, Entries, Entry, FileType, HardLinkGroup, LinkKey};
pub use newc::{HEADER_LEN, PATH_MAX, TRAILER_NAME};

use core::fmt;

/// Everything that can be wrong with an initramfs image.
///
/// Offsets are byte positions in the slice that was being parsed: for
/// [`entries`] that is the (possibly decompressed) archive data, for
/// [`decompress_if_needed`] the original image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CpioError {
    /// A header does not start with `070701` or `070702`.
    BadMagic {
        /// Where the header should have started.
        offset: usize,
    },
    /// The data ends in the middle of a 110-byte header.
    TruncatedHeader {
        /// Where the header started.
        offset: usize,
    },
    /// A header field is not 8 hexadecimal digits.
    BadField {
        /// Where the header started.
        offset: usize,
        /// Which field, as named in the format (`c_ino`, `c_mode`, ...).
        field: &'static str,
    },
    /// `c_namesize` is 0: there is not even room for the terminating NUL.
    EmptyName {
        /// Where the header started.
        offset: usize,
    },
    /// The name is longer than [`PATH_MAX`] bytes.
    NameTooLong {
        /// Where the header started.
        offset: usize,
    },
    /// The name runs past the end of the data.
    TruncatedName {
        /// Where the header started.
        offset: usize,
    },
    /// The last byte of the name is not NUL.
    NameNotTerminated {
        /// Where the header started.
        offset: usize,
    },
    /// The name contains a NUL before its end, or is not UTF-8.
    InvalidName {
        /// Where the header started.
        offset: usize,
    },
    /// The file data (`c_filesize` bytes) runs past the end of the data.
    TruncatedData {
        /// Where the header started.
        offset: usize,
        /// The size the header claimed.
        size: u32,
    },
    /// The file-type bits of `c_mode` name no type Linux knows.
    UnknownFileType {
        /// Where the header started.
        offset: usize,
        /// The whole `c_mode` field.
        mode: u32,
    },
    /// A symbolic link's target is longer than [`PATH_MAX`] bytes.
    SymlinkTooLong {
        /// Where the header started.
        offset: usize,
    },
    /// An archive does not start at a multiple of 4 bytes, which Linux
    /// rejects as "broken padding".
    BrokenPadding {
        /// Where the archive starts.
        offset: usize,
    },
    /// The data ended before a `TRAILER!!!` member.
    MissingTrailer,
    /// Compressed data where a cpio header should be: the caller passed a
    /// compressed image to [`entries`] instead of going through
    /// [`decompress_if_needed`], or a compressed stream's output contains
    /// another compressed stream (which Linux rejects too).
    UnexpectedCompressedData {
        /// Where the compressed data starts.
        offset: usize,
    },
    /// A compression format Linux knows but this crate does not decode.
    UnsupportedCompression {
        /// Where the compressed stream starts.
        offset: usize,
        /// The format's name, as Linux prints it (`bzip2`, `xz`, ...).
        format: &'static str,
    },
    /// Bytes that are neither zero padding, nor a cpio archive, nor a known
    /// compressed stream.
    Junk {
        /// Where they start.
        offset: usize,
    },
    /// A gzip member header is malformed or truncated.
    BadGzipHeader {
        /// Where the gzip member starts.
        offset: usize,
    },
    /// The DEFLATE data inside a gzip member is corrupt or truncated.
    BadDeflateData {
        /// Where the gzip member starts.
        offset: usize,
    },
    /// The gzip trailer is missing, or its CRC-32 or length does not match
    /// the decompressed data.
    BadGzipTrailer {
        /// Where the gzip member starts.
        offset: usize,
    },
    /// The decompressed image would exceed the size limit.
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// Memory for the decompressed image could not be allocated.
    OutOfMemory,
}

impl fmt::Display for CpioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CpioError::BadMagic { offset } => write!(f, "no cpio magic at offset {offset}"),
            CpioError::TruncatedHeader { offset } => {
                write!(f, "cpio header at offset {offset} is truncated")
            }
            CpioError::BadField { offset, field } => {
                write!(f, "cpio header at offset {offset}: {field} is not hexadecimal")
            }
            CpioError::EmptyName { offset } => {
                write!(f, "cpio header at offset {offset}: name size is 0")
            }
            CpioError::NameTooLong { offset } => {
                write!(f, "cpio header at offset {offset}: name longer than PATH_MAX")
            }
            CpioError::TruncatedName { offset } => {
                write!(f, "cpio header at offset {offset}: name is truncated")
            }
            CpioError::NameNotTerminated { offset } => {
                write!(f, "cpio header at offset {offset}: name without NUL terminator")
            }
            CpioError::InvalidName { offset } => {
                write!(f, "cpio header at offset {offset}: name has a NUL inside or is not UTF-8")
            }
            CpioError::TruncatedData { offset, size } => {
                write!(f, "cpio member at offset {offset}: {size} data bytes run past the end")
            }
            CpioError::UnknownFileType { offset, mode } => {
                write!(f, "cpio member at offset {offset}: unknown file type in mode {mode:#o}")
            }
            CpioError::SymlinkTooLong { offset } => {
                write!(f, "cpio member at offset {offset}: symlink target longer than PATH_MAX")
            }
            CpioError::BrokenPadding { offset } => {
                write!(f, "cpio archive at offset {offset} is not 4-byte aligned (broken padding)")
            }
            CpioError::MissingTrailer => write!(f, "cpio archive ends without TRAILER!!!"),
            CpioError::UnexpectedCompressedData { offset } => {
                write!(f, "compressed data at offset {offset} where a cpio header was expected")
            }
            CpioError::UnsupportedCompression { offset, format } => {
                write!(f, "{format}-compressed data at offset {offset} is not supported")
            }
            CpioError::Junk { offset } => {
                write!(f, "junk at offset {offset}: not cpio, padding or compressed data")
            }
            CpioError::BadGzipHeader { offset } => {
                write!(f, "gzip member at offset {offset}: bad header")
            }
            CpioError::BadDeflateData { offset } => {
                write!(f, "gzip member at offset {offset}: corrupt compressed data")
            }
            CpioError::BadGzipTrailer { offset } => {
                write!(f, "gzip member at offset {offset}: missing trailer or checksum mismatch")
            }
            CpioError::TooLarge { limit } => {
                write!(f, "decompressed initramfs exceeds {limit} bytes")
            }
            CpioError::OutOfMemory => write!(f, "out of memory while decompressing"),
        }
    }
}

impl core::error::Error for CpioError {}

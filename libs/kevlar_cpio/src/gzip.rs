//! Turning an initramfs image into plain cpio data: gzip members are
//! inflated, uncompressed archives and zero padding pass through.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::vec::Vec;

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use crate::newc::{archive_end, skip_zeros};
use crate::CpioError;

/// The size limit [`decompress_if_needed`] puts on the decompressed image:
/// 1 GiB. It only stops a tiny, hostile image from inflating until memory
/// runs out; use [`decompress_with_limit`] for a limit that fits the
/// machine.
pub const DEFAULT_MAX_UNPACKED: usize = 1 << 30;

/// Returns the image as plain cpio data for [`entries`](crate::entries).
///
/// The image is read the way Linux's `unpack_to_rootfs` reads it: a
/// sequence of uncompressed cpio archives, gzip members and runs of zero
/// bytes, in any order. A gzip member may hold several archives. When there
/// is nothing to decompress the image itself is returned, borrowed;
/// otherwise the pieces are concatenated into a new buffer, each starting
/// at a multiple of 4 bytes (zero padding is inserted between them where
/// needed, which `entries` skips).
///
/// Each gzip member's CRC-32 and length are checked (Linux does not check
/// them; a corrupt initramfs is better refused than half-unpacked). Other
/// compression formats Linux can be built with (bzip2, lzma, xz, lzo, lz4,
/// zstd) are recognised and refused with
/// [`CpioError::UnsupportedCompression`].
///
/// The decompressed size is limited to [`DEFAULT_MAX_UNPACKED`].
pub fn decompress_if_needed(image: &[u8]) -> Result<Cow<'_, [u8]>, CpioError> {
    decompress_with_limit(image, DEFAULT_MAX_UNPACKED)
}

/// [`decompress_if_needed`] with a caller-chosen limit, in bytes, on the
/// size of the returned buffer when one has to be built.
pub fn decompress_with_limit(image: &[u8], limit: usize) -> Result<Cow<'_, [u8]>, CpioError> {
    // Built only once the first compressed member shows up, so that a plain
    // image is never copied.
    let mut out: Option<Vec<u8>> = None;
    let mut pos = 0;
    while let Some(&byte) = image.get(pos) {
        if byte == 0 {
            pos = skip_zeros(image, pos);
            continue;
        }
        let rest = image.get(pos..).unwrap_or(&[]);
        // Linux takes a '0' for the start of a cpio archive only at a
        // multiple of 4; anywhere else it must be compressed data.
        if byte == b'0' && pos % 4 == 0 {
            let end = archive_end(image, pos)?;
            if let Some(out) = out.as_mut() {
                append(out, image.get(pos..end).unwrap_or(&[]), limit)?;
            }
            pos = end;
            continue;
        }
        match compression_format(rest) {
            Some("gzip") => {
                let out = match out {
                    Some(ref mut v) => v,
                    None => {
                        let mut v = Vec::new();
                        append(&mut v, image.get(..pos).unwrap_or(&[]), limit)?;
                        out.insert(v)
                    }
                };
                pos = gunzip_member(image, pos, out, limit)?;
            }
            Some(format) => return Err(CpioError::UnsupportedCompression { offset: pos, format }),
            None if byte == b'0' => return Err(CpioError::BrokenPadding { offset: pos }),
            None => return Err(CpioError::Junk { offset: pos }),
        }
    }
    Ok(match out {
        Some(v) => Cow::Owned(v),
        None => Cow::Borrowed(image),
    })
}

/// The compression format whose magic starts `data`, named as Linux names
/// it. Like Linux's `decompress_method`, only the first two bytes count.
pub(crate) fn compression_format(data: &[u8]) -> Option<&'static str> {
    const MAGICS: [([u8; 2], &str); 8] = [
        ([0x1f, 0x8b], "gzip"),
        // "Old" gzip magic: Linux routes it to gunzip, which then refuses it.
        ([0x1f, 0x9e], "gzip"),
        ([0x42, 0x5a], "bzip2"),
        ([0x5d, 0x00], "lzma"),
        ([0xfd, 0x37], "xz"),
        ([0x89, 0x4c], "lzo"),
        ([0x02, 0x21], "lz4"),
        ([0x28, 0xb5], "zstd"),
    ];
    let head = data.get(..2)?;
    MAGICS.iter().find(|(m, _)| m[..] == *head).map(|&(_, name)| name)
}

/// Pads `out` with zeros to a multiple of 4, then appends `piece`, within
/// `limit`.
fn append(out: &mut Vec<u8>, piece: &[u8], limit: usize) -> Result<(), CpioError> {
    let padded = out.len().checked_add(3).ok_or(CpioError::TooLarge { limit })? & !3;
    let total = padded.checked_add(piece.len()).ok_or(CpioError::TooLarge { limit })?;
    if total > limit {
        return Err(CpioError::TooLarge { limit });
    }
    out.try_reserve(total - out.len()).map_err(|_| CpioError::OutOfMemory)?;
    out.resize(padded, 0);
    out.extend_from_slice(piece);
    Ok(())
}

// Header flag bits, RFC 1952 section 2.3.1.
const FHCRC: u8 = 1 << 1;
const FEXTRA: u8 = 1 << 2;
const FNAME: u8 = 1 << 3;
const FCOMMENT: u8 = 1 << 4;
const FRESERVED: u8 = 0xe0;

/// The length of the gzip member header at the start of `m`.
fn gzip_header_len(m: &[u8]) -> Option<usize> {
    let fixed = m.get(..10)?;
    // ID1, ID2, and CM = 8 (deflate), the only method defined.
    if fixed[0] != 0x1f || fixed[1] != 0x8b || fixed[2] != 8 {
        return None;
    }
    let flags = fixed[3];
    if flags & FRESERVED != 0 {
        return None;
    }
    let mut pos = 10usize;
    if flags & FEXTRA != 0 {
        let xlen = m.get(pos..pos + 2)?;
        let xlen = usize::from(u16::from_le_bytes([xlen[0], xlen[1]]));
        pos = pos.checked_add(2 + xlen)?;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let nul = m.get(pos..)?.iter().position(|&b| b == 0)?;
            pos = pos.checked_add(nul + 1)?;
        }
    }
    if flags & FHCRC != 0 {
        // The header CRC-16 is not checked: the member's CRC-32 covers
        // what matters, the decompressed data.
        pos = pos.checked_add(2)?;
    }
    (pos <= m.len()).then_some(pos)
}

/// Inflates the gzip member starting at `start` onto the end of `out` and
/// returns the offset just past the member.
fn gunzip_member(image: &[u8], start: usize, out: &mut Vec<u8>, limit: usize) -> Result<usize, CpioError> {
    let member = image.get(start..).unwrap_or(&[]);
    let header_len = gzip_header_len(member).ok_or(CpioError::BadGzipHeader { offset: start })?;
    let deflate = member.get(header_len..).unwrap_or(&[]);

    // Linux decompresses each member into a fresh stream whose archives are
    // aligned from its own start.
    append(out, &[], limit)?;
    let member_start = out.len();
    let consumed = inflate(deflate, out, member_start, limit, start)?;

    let trailer_start = header_len + consumed;
    let trailer = member
        .get(trailer_start..trailer_start + 8)
        .ok_or(CpioError::BadGzipTrailer { offset: start })?;
    let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let isize = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    let produced = out.get(member_start..).unwrap_or(&[]);
    // ISIZE is the length modulo 2^32, so the truncating cast is the spec.
    if crc32(produced) != crc || produced.len() as u32 != isize {
        return Err(CpioError::BadGzipTrailer { offset: start });
    }
    Ok(start + trailer_start + 8)
}

/// Inflates raw DEFLATE data from `input` onto `out` after `member_start`,
/// growing `out` within `limit`; returns how many input bytes the stream
/// used (the decoder stops at the final block, so what follows is left).
fn inflate(
    input: &[u8],
    out: &mut Vec<u8>,
    member_start: usize,
    limit: usize,
    offset: usize,
) -> Result<usize, CpioError> {
    // Boxed: the decoder state is about 10 KiB, too much for a kernel stack.
    let mut decoder = Box::<DecompressorOxide>::default();
    // The whole member output stays in one slice, so back-references are
    // resolved from it directly; its start is this member's own start, so a
    // corrupt back-reference cannot reach an earlier member's data.
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let mut in_pos = 0usize;
    let mut written = 0usize;
    // A first guess of 4x the compressed size; doubled as needed.
    let guess = input.len().saturating_mul(4).max(4096);
    grow(out, member_start.saturating_add(guess).min(limit).max(out.len()))?;
    loop {
        let rest = input.get(in_pos..).ok_or(CpioError::BadDeflateData { offset })?;
        let buf = out.get_mut(member_start..).ok_or(CpioError::BadDeflateData { offset })?;
        let (status, consumed, produced) = decompress(&mut decoder, rest, buf, written, flags);
        in_pos = in_pos.saturating_add(consumed);
        written = written.saturating_add(produced);
        match status {
            TINFLStatus::Done => {
                out.truncate(member_start.saturating_add(written));
                return Ok(in_pos);
            }
            TINFLStatus::HasMoreOutput => {
                if out.len() >= limit {
                    return Err(CpioError::TooLarge { limit });
                }
                grow(out, out.len().saturating_mul(2).min(limit))?;
            }
            _ => return Err(CpioError::BadDeflateData { offset }),
        }
    }
}

fn grow(out: &mut Vec<u8>, new_len: usize) -> Result<(), CpioError> {
    if new_len > out.len() {
        out.try_reserve_exact(new_len - out.len()).map_err(|_| CpioError::OutOfMemory)?;
        out.resize(new_len, 0);
    }
    Ok(())
}

/// The CRC-32 of RFC 1952 (the reflected IEEE 802.3 polynomial).
pub(crate) fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc = CRC_TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

// Computed at compile time so that no table needs initialising at boot.
const CRC_TABLE: [u32; 256] = crc_table();

const fn crc_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

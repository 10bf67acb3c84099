//! Tests on archives built here by a small newc encoder, so that every
//! field and every malformation can be controlled.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::gzip::crc32;
use crate::*;

const REG: u32 = 0o100_000;
const DIR: u32 = 0o040_000;
const LNK: u32 = 0o120_000;
const CHR: u32 = 0o020_000;
const BLK: u32 = 0o060_000;
const FIFO: u32 = 0o010_000;
const SOCK: u32 = 0o140_000;

/// One member to encode; the overrides write header values that disagree
/// with the actual name and data, to build malformed archives.
#[derive(Clone)]
struct M<'a> {
    magic: &'a [u8; 6],
    name: &'a [u8],
    mode: u32,
    uid: u32,
    gid: u32,
    nlink: u32,
    mtime: u32,
    ino: u32,
    dev: (u32, u32),
    rdev: (u32, u32),
    data: &'a [u8],
    namesize: Option<u32>,
    filesize: Option<u32>,
    nul: bool,
}

fn m<'a>(name: &'a str, mode: u32, data: &'a [u8]) -> M<'a> {
    M {
        magic: b"070701",
        name: name.as_bytes(),
        mode,
        uid: 0,
        gid: 0,
        nlink: 1,
        mtime: 0,
        ino: 0,
        dev: (0, 0),
        rdev: (0, 0),
        data,
        namesize: None,
        filesize: None,
        nul: true,
    }
}

/// Appends one member; alignment counts from the start of `out`, so an
/// archive must start at a multiple of 4 in it.
fn push(out: &mut Vec<u8>, x: &M<'_>) {
    let namesize = x.namesize.unwrap_or(x.name.len() as u32 + u32::from(x.nul));
    let filesize = x.filesize.unwrap_or(x.data.len() as u32);
    out.extend_from_slice(x.magic);
    for v in [
        x.ino, x.mode, x.uid, x.gid, x.nlink, x.mtime, filesize, x.dev.0, x.dev.1, x.rdev.0, x.rdev.1,
        namesize, 0,
    ] {
        out.extend_from_slice(alloc::format!("{v:08X}").as_bytes());
    }
    out.extend_from_slice(x.name);
    if x.nul {
        out.push(0);
    }
    pad4(out);
    out.extend_from_slice(x.data);
    pad4(out);
}

fn pad4(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

fn trailer(out: &mut Vec<u8>) {
    push(out, &m("TRAILER!!!", 0, b""));
}

/// A complete archive of `members`, padded to 512 bytes as cpio does.
fn archive(members: &[M<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for x in members {
        push(&mut out, x);
    }
    trailer(&mut out);
    while out.len() % 512 != 0 {
        out.push(0);
    }
    out
}

/// A gzip member around `data`, with a file name in the header to exercise
/// the optional fields.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = alloc::vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
    out.extend_from_slice(b"initrd.cpio\0");
    out.extend_from_slice(&miniz_oxide::deflate::compress_to_vec(data, 6));
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn all(data: &[u8]) -> Result<Vec<Entry<'_>>, CpioError> {
    entries(data).collect()
}

/// The error the iterator ends with (panics if there is none: test only).
fn first_error(data: &[u8]) -> CpioError {
    entries(data).find_map(|r| r.err()).expect("expected an error")
}

#[test]
fn regular_file_fields() {
    let mut x = m("./etc/hostname", REG | 0o644, b"kevlar\n");
    x.uid = 1000;
    x.gid = 100;
    x.mtime = 0x6000_0000;
    x.ino = 77;
    x.dev = (8, 1);
    let data = archive(&[x]);
    let e = all(&data).unwrap();
    assert_eq!(e.len(), 1);
    let e = e[0];
    assert_eq!(e.name, "etc/hostname");
    assert_eq!(e.mode, REG | 0o644);
    assert_eq!(e.file_type(), FileType::Regular);
    assert_eq!(e.permissions(), 0o644);
    assert_eq!((e.uid, e.gid, e.nlink, e.ino), (1000, 100, 1, 77));
    assert_eq!(e.mtime, 0x6000_0000);
    assert_eq!((e.dev_major, e.dev_minor), (8, 1));
    assert_eq!(e.data, b"kevlar\n");
    assert_eq!(e.archive_index, 0);
    assert_eq!(e.link_key(), None);
}

#[test]
fn every_name_and_data_length_aligns() {
    // Name lengths 1..9 and data lengths 0..9 cover every padding residue of
    // both the header+name and the data.
    let names: Vec<alloc::string::String> = (1..10).map(|n| "n".repeat(n)).collect();
    let datas: Vec<Vec<u8>> = (0..10u8).map(|n| (0..n).map(|i| i + 1).collect()).collect();
    let mut members = Vec::new();
    for name in &names {
        for data in &datas {
            members.push(m(name, REG | 0o600, data));
        }
    }
    let data = archive(&members);
    let got = all(&data).unwrap();
    assert_eq!(got.len(), members.len());
    for (g, x) in got.iter().zip(&members) {
        assert_eq!(g.name.as_bytes(), x.name);
        assert_eq!(g.data, x.data);
    }
}

#[test]
fn every_file_type() {
    let mut cdev = m("dev/null", CHR | 0o666, b"");
    cdev.rdev = (1, 3);
    let mut bdev = m("dev/sda", BLK | 0o660, b"");
    bdev.rdev = (8, 0);
    let data = archive(&[
        m(".", DIR | 0o755, b""),
        m("bin", DIR | 0o755, b""),
        m("bin/sh", LNK | 0o777, b"busybox"),
        cdev,
        bdev,
        m("run/initctl", FIFO | 0o600, b""),
        m("run/sock", SOCK | 0o755, b""),
        m("sbin/init", REG | 0o4755, b"\x7fELF"),
    ]);
    let e = all(&data).unwrap();
    let types: Vec<FileType> = e.iter().map(|e| e.file_type()).collect();
    use FileType::*;
    assert_eq!(types, [Directory, Directory, Symlink, CharDevice, BlockDevice, Fifo, Socket, Regular]);
    assert_eq!(e[0].name, "");
    assert_eq!(e[2].data, b"busybox");
    assert_eq!((e[3].rdev_major, e[3].rdev_minor), (1, 3));
    assert_eq!((e[4].rdev_major, e[4].rdev_minor), (8, 0));
    assert_eq!(e[7].permissions(), 0o4755);
}

#[test]
fn crc_format_is_accepted_and_checksum_ignored() {
    let mut x = m("a", REG | 0o644, b"data");
    x.magic = b"070702";
    let data = archive(&[x]);
    assert_eq!(all(&data).unwrap()[0].data, b"data");
}

#[test]
fn lowercase_hex_is_accepted() {
    let data = archive(&[m("a", REG | 0o644, b"data")]);
    let mut lower = data.clone();
    lower[..HEADER_LEN].make_ascii_lowercase();
    assert_ne!(lower, data);
    assert_eq!(all(&lower).unwrap()[0].mode, REG | 0o644);
}

#[test]
fn stops_at_trailer_and_needs_it() {
    let mut data = Vec::new();
    push(&mut data, &m("a", REG, b"1"));
    push(&mut data, &m("b", REG, b"2"));
    let mut it = entries(&data);
    assert!(it.next().unwrap().is_ok());
    assert!(it.next().unwrap().is_ok());
    assert_eq!(it.next(), Some(Err(CpioError::MissingTrailer)));
    assert_eq!(it.next(), None);

    trailer(&mut data);
    assert_eq!(all(&data).unwrap().len(), 2);
}

#[test]
fn trailer_without_final_padding() {
    // The trailer's padding may be cut off at the end of the data.
    let mut data = Vec::new();
    push(&mut data, &m("a", REG, b"1"));
    trailer(&mut data);
    while data.last() == Some(&0) {
        data.pop();
    }
    data.push(0); // the name's NUL
    assert_eq!(all(&data).unwrap().len(), 1);
}

#[test]
fn empty_and_zero_input_have_no_entries() {
    assert_eq!(all(&[]).unwrap().len(), 0);
    assert_eq!(all(&[0; 4096]).unwrap().len(), 0);
}

#[test]
fn concatenated_archives_with_zero_padding() {
    let mut data = archive(&[m("a", REG, b"first")]);
    data.extend_from_slice(&[0; 1024]);
    data.extend_from_slice(&archive(&[m("b", REG, b"second"), m("c", DIR | 0o755, b"")]));
    let e = all(&data).unwrap();
    assert_eq!(e.iter().map(|e| e.name).collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(e.iter().map(|e| e.archive_index).collect::<Vec<_>>(), [0, 1, 1]);
}

#[test]
fn broken_padding_between_archives() {
    let mut data = Vec::new();
    push(&mut data, &m("a", REG, b"1"));
    trailer(&mut data);
    data.push(0);
    data.push(0);
    data.extend_from_slice(&archive(&[m("b", REG, b"2")])[..]);
    // The second archive starts at an offset of 2 mod 4.
    assert!(matches!(first_error(&data), CpioError::BrokenPadding { .. }));
}

#[test]
fn junk_after_trailer() {
    let mut data = archive(&[m("a", REG, b"1")]);
    data.extend_from_slice(b"garbage!");
    let mut it = entries(&data);
    assert!(it.next().unwrap().is_ok());
    assert_eq!(it.next(), Some(Err(CpioError::BadMagic { offset: 512 })));
    assert_eq!(it.next(), None);
}

#[test]
fn compressed_data_where_header_expected() {
    let data = gzip(&archive(&[m("a", REG, b"1")]));
    assert_eq!(first_error(&data), CpioError::UnexpectedCompressedData { offset: 0 });
}

#[test]
fn bad_magic() {
    let mut data = archive(&[m("a", REG, b"1")]);
    data[5] = b'7';
    assert_eq!(first_error(&data), CpioError::BadMagic { offset: 0 });
    // Old binary and odc cpio formats are not newc.
    let mut odc = archive(&[m("a", REG, b"1")]);
    odc[..6].copy_from_slice(b"070707");
    assert_eq!(first_error(&odc), CpioError::BadMagic { offset: 0 });
}

#[test]
fn truncated_header() {
    let data = archive(&[m("a", REG, b"1")]);
    for len in [1, 5, 6, 50, 109] {
        assert_eq!(first_error(&data[..len]), CpioError::TruncatedHeader { offset: 0 }, "len {len}");
    }
}

#[test]
fn non_hex_field() {
    let mut data = archive(&[m("a", REG, b"1")]);
    data[6 + 8 + 3] = b'x'; // inside c_mode
    assert_eq!(first_error(&data), CpioError::BadField { offset: 0, field: "c_mode" });
    let mut data = archive(&[m("a", REG, b"1")]);
    data[6 + 8 * 12] = b' '; // c_check is validated too
    assert_eq!(first_error(&data), CpioError::BadField { offset: 0, field: "c_check" });
}

#[test]
fn name_without_nul() {
    let mut x = m("abc", REG, b"1");
    x.nul = false;
    let data = archive(&[x]);
    assert_eq!(first_error(&data), CpioError::NameNotTerminated { offset: 0 });
}

#[test]
fn name_size_zero() {
    let mut x = m("", REG, b"1");
    x.nul = false;
    let data = archive(&[x]);
    assert_eq!(first_error(&data), CpioError::EmptyName { offset: 0 });
}

#[test]
fn name_with_inner_nul_or_bad_utf8() {
    let data = archive(&[M { name: b"a\0b", ..m("", REG, b"") }]);
    assert_eq!(first_error(&data), CpioError::InvalidName { offset: 0 });
    let data = archive(&[M { name: b"\xff\xfe", ..m("", REG, b"") }]);
    assert_eq!(first_error(&data), CpioError::InvalidName { offset: 0 });
}

#[test]
fn name_too_long_or_truncated() {
    let long = "x".repeat(PATH_MAX);
    let data = archive(&[m(&long, REG, b"")]);
    assert_eq!(first_error(&data), CpioError::NameTooLong { offset: 0 });
    let ok = "x".repeat(PATH_MAX - 1);
    assert_eq!(all(&archive(&[m(&ok, REG, b"")])).unwrap()[0].name.len(), PATH_MAX - 1);

    let mut x = m("abc", REG, b"");
    x.namesize = Some(4000);
    let mut data = Vec::new();
    push(&mut data, &x);
    assert_eq!(first_error(&data), CpioError::TruncatedName { offset: 0 });
}

#[test]
fn truncated_data_and_absurd_sizes() {
    let mut data = Vec::new();
    push(&mut data, &m("a", REG, b"0123456789"));
    trailer(&mut data);
    let cut = HEADER_LEN + 2 + 5; // half of the data
    assert_eq!(first_error(&data[..cut]), CpioError::TruncatedData { offset: 0, size: 10 });

    for size in [u32::MAX, 0x8000_0000, 0x1000_0000] {
        let mut x = m("a", REG, b"12");
        x.filesize = Some(size);
        let data = archive(&[x]);
        assert_eq!(first_error(&data), CpioError::TruncatedData { offset: 0, size }, "size {size:#x}");
    }
    let mut x = m("a", REG, b"12");
    x.namesize = Some(u32::MAX);
    assert_eq!(first_error(&archive(&[x])), CpioError::NameTooLong { offset: 0 });
}

#[test]
fn unknown_file_type() {
    let data = archive(&[m("weird", 0o030_644, b"")]);
    assert_eq!(first_error(&data), CpioError::UnknownFileType { offset: 0, mode: 0o030_644 });
    let data = archive(&[m("typeless", 0o644, b"")]);
    assert!(matches!(first_error(&data), CpioError::UnknownFileType { .. }));
}

#[test]
fn symlink_target_limit() {
    let target = alloc::vec![b'a'; PATH_MAX + 1];
    let data = archive(&[m("l", LNK | 0o777, &target)]);
    assert_eq!(first_error(&data), CpioError::SymlinkTooLong { offset: 0 });
}

#[test]
fn error_position_is_reported_for_later_members() {
    let mut data = Vec::new();
    push(&mut data, &m("ok", REG, b"fine"));
    let second = data.len();
    push(&mut data, &m("bad", 0, b""));
    trailer(&mut data);
    let mut it = entries(&data);
    assert_eq!(it.next().unwrap().unwrap().name, "ok");
    assert_eq!(it.next(), Some(Err(CpioError::UnknownFileType { offset: second, mode: 0 })));
    assert_eq!(it.next(), None);
}

#[test]
fn hard_links_are_grouped() {
    let link = |name, data| {
        let mut x = m(name, REG | 0o755, data);
        x.ino = 42;
        x.nlink = 3;
        x.dev = (0, 5);
        x
    };
    let mut other = m("same-ino-other-dev", REG, b"z");
    other.ino = 42;
    other.nlink = 2;
    other.dev = (0, 6);
    let mut first = archive(&[link("bin/a", b""), m("x", REG, b"x"), link("bin/b", b""), other, link("bin/c", b"payload")]);
    // In a second archive the same inode number is a different file.
    first.extend_from_slice(&archive(&[link("later", b"again")]));
    let groups = hard_link_groups(&first).unwrap();
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    assert_eq!(g.names().collect::<Vec<_>>(), ["bin/a", "bin/b", "bin/c"]);
    assert_eq!(g.data(), b"payload");
    assert_eq!(g.key, LinkKey { archive_index: 0, dev_major: 0, dev_minor: 5, ino: 42 });
    // Directories have nlink >= 2 too but are never hard links.
    let mut d = m("d", DIR | 0o755, b"");
    d.nlink = 2;
    assert_eq!(all(&archive(&[d])).unwrap()[0].link_key(), None);
}

#[test]
fn hard_link_groups_report_errors() {
    let mut data = archive(&[m("a", REG, b"1")]);
    data.truncate(HEADER_LEN);
    assert!(hard_link_groups(&data).is_err());
}

#[test]
fn crc32_check_value() {
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    assert_eq!(crc32(b""), 0);
}

#[test]
fn uncompressed_image_is_borrowed() {
    let data = archive(&[m("a", REG, b"1")]);
    let out = decompress_if_needed(&data).unwrap();
    assert!(matches!(out, Cow::Borrowed(_)));
    assert_eq!(&*out, &data[..]);
    assert!(matches!(decompress_if_needed(&[]).unwrap(), Cow::Borrowed(_)));
}

#[test]
fn gzip_image() {
    let plain = archive(&[m("init", REG | 0o755, b"#!/bin/sh\necho hi\n"), m("etc", DIR | 0o755, b"")]);
    let image = gzip(&plain);
    let out = decompress_if_needed(&image).unwrap();
    assert!(matches!(out, Cow::Owned(_)));
    assert_eq!(&*out, &plain[..]);
    let e = all(&out).unwrap();
    assert_eq!(e[0].data, b"#!/bin/sh\necho hi\n");
}

#[test]
fn mixed_pieces_like_linux() {
    // Uncompressed early archive (as for CPU microcode), zero padding, two
    // gzip members with padding between them, one holding two archives,
    // and a trailing uncompressed archive.
    let early = archive(&[m("kernel/x86/microcode/GenuineIntel.bin", REG, b"ucode")]);
    let a = archive(&[m("a", REG, b"from gzip one")]);
    let mut two = archive(&[m("b", REG, b"from gzip two")]);
    two.extend_from_slice(&[0; 8]);
    two.extend_from_slice(&archive(&[m("c", REG, b"still gzip two")]));
    let tail = archive(&[m("d", REG, b"tail")]);

    let mut image = early.clone();
    image.extend_from_slice(&[0; 3]);
    image.extend_from_slice(&gzip(&a));
    image.extend_from_slice(&[0; 5]);
    image.extend_from_slice(&gzip(&two));
    // Round up to 4 so that the uncompressed archive is aligned.
    while image.len() % 4 != 0 {
        image.push(0);
    }
    image.extend_from_slice(&tail);

    let out = decompress_if_needed(&image).unwrap();
    let e = all(&out).unwrap();
    let names: Vec<_> = e.iter().map(|e| e.name).collect();
    assert_eq!(names, ["kernel/x86/microcode/GenuineIntel.bin", "a", "b", "c", "d"]);
    assert_eq!(e[3].data, b"still gzip two");
    assert_eq!(e.iter().map(|e| e.archive_index).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
}

#[test]
fn gzip_member_with_odd_length_output_keeps_alignment() {
    // A member whose output is not a multiple of 4 long (trailer padding
    // cut off), followed by another member.
    let mut one = Vec::new();
    push(&mut one, &m("x", REG, b"1"));
    trailer(&mut one);
    while one.last() == Some(&0) {
        one.pop();
    }
    one.push(0);
    assert!(one.len() % 4 != 0);
    let mut image = gzip(&one);
    image.extend_from_slice(&gzip(&archive(&[m("y", REG, b"2")])));
    let out = decompress_if_needed(&image).unwrap();
    let names: Vec<_> = all(&out).unwrap().iter().map(|e| e.name).collect();
    assert_eq!(names, ["x", "y"]);
}

#[test]
fn gzip_corruption_is_detected() {
    let plain = archive(&[m("a", REG, &[7u8; 3000])]);
    let good = gzip(&plain);
    let n = good.len();

    let mut bad_crc = good.clone();
    bad_crc[n - 6] ^= 1;
    assert_eq!(decompress_if_needed(&bad_crc), Err(CpioError::BadGzipTrailer { offset: 0 }));

    let mut bad_len = good.clone();
    bad_len[n - 2] ^= 1;
    assert_eq!(decompress_if_needed(&bad_len), Err(CpioError::BadGzipTrailer { offset: 0 }));

    assert_eq!(decompress_if_needed(&good[..n - 3]), Err(CpioError::BadGzipTrailer { offset: 0 }));
    assert_eq!(decompress_if_needed(&good[..n - 12]), Err(CpioError::BadDeflateData { offset: 0 }));
    assert_eq!(decompress_if_needed(&good[..15]), Err(CpioError::BadGzipHeader { offset: 0 }));

    let mut bad_method = good.clone();
    bad_method[2] = 7;
    assert_eq!(decompress_if_needed(&bad_method), Err(CpioError::BadGzipHeader { offset: 0 }));
    let mut reserved = good.clone();
    reserved[3] |= 0x80;
    assert_eq!(decompress_if_needed(&reserved), Err(CpioError::BadGzipHeader { offset: 0 }));

    // Flip bytes all over the deflate data: each must give an error or
    // (rarely) a different valid stream, never a panic.
    for i in 22..n - 8 {
        let mut flipped = good.clone();
        flipped[i] ^= 0x5a;
        let _ = decompress_if_needed(&flipped);
    }
}

#[test]
fn gzip_bomb_hits_the_limit() {
    let plain = alloc::vec![0u8; 1 << 20];
    let image = gzip(&plain);
    assert!(image.len() < 4096);
    assert_eq!(decompress_with_limit(&image, 100_000), Err(CpioError::TooLarge { limit: 100_000 }));
    assert_eq!(decompress_with_limit(&image, 1 << 20).unwrap().len(), 1 << 20);
}

#[test]
fn other_compressions_are_named() {
    for (magic, format) in [
        (&b"BZh91AY"[..], "bzip2"),
        (&[0x5d, 0, 0, 0x80][..], "lzma"),
        (&[0xfd, b'7', b'z', b'X', b'Z', 0][..], "xz"),
        (&[0x89, b'L', b'Z', b'O'][..], "lzo"),
        (&[0x02, 0x21, 0x4c, 0x18][..], "lz4"),
        (&[0x28, 0xb5, 0x2f, 0xfd][..], "zstd"),
    ] {
        let mut image = archive(&[m("a", REG, b"1")]);
        let offset = image.len();
        image.extend_from_slice(magic);
        assert_eq!(decompress_if_needed(&image), Err(CpioError::UnsupportedCompression { offset, format }));
    }
}

#[test]
fn junk_and_misaligned_archives_in_image() {
    assert_eq!(decompress_if_needed(b"hello world"), Err(CpioError::Junk { offset: 0 }));
    let mut image = alloc::vec![0u8; 2];
    image.extend_from_slice(&archive(&[m("a", REG, b"1")]));
    assert_eq!(decompress_if_needed(&image), Err(CpioError::BrokenPadding { offset: 2 }));
    // Errors inside an uncompressed archive are found while walking it.
    let mut bad = archive(&[m("a", REG, b"1")]);
    bad[7] = b'z';
    assert_eq!(decompress_if_needed(&bad), Err(CpioError::BadField { offset: 0, field: "c_ino" }));
}

#[test]
fn errors_display() {
    let e = CpioError::TruncatedData { offset: 8, size: 3 };
    assert_eq!(alloc::format!("{e}"), "cpio member at offset 8: 3 data bytes run past the end");
}

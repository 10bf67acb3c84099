//! `#!` interpreter lines, parsed as Linux's `fs/binfmt_script.c` does.

/// How much of the file Linux looks at for the `#!` line
/// (`BINPRM_BUF_SIZE`).
pub const BINPRM_BUF_SIZE: usize = 256;

fn space_or_tab(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// Recognises a script: returns the interpreter path and its optional
/// single argument from a `#!` line, or `None` when the file is not a
/// script Linux would run.
///
/// The rules are Linux's:
/// - only the first [`BINPRM_BUF_SIZE`] bytes count, as if the file were
///   padded with NULs to that size;
/// - the line ends at the first newline; if there is none in those bytes,
///   the interpreter path must still end (at a space, tab or NUL) within
///   them, else the path might be truncated and the file is refused; the
///   last of the 256 bytes is then dropped;
/// - spaces and tabs after `#!`, between path and argument, and at the end
///   of the line are skipped; everything else, including `\r`, is kept;
/// - the argument is the whole rest of the line, inner spaces included
///   (`#!/usr/bin/env -S a b` gives the single argument `-S a b`);
/// - a NUL ends the line early, as it ends a C string.
///
/// Linux then runs the interpreter with the arguments: interpreter path,
/// the argument if any, the script's path, and the original `argv[1..]`.
///
/// Paths are returned as `&str`; a line that is not UTF-8 gives `None`.
pub fn is_script(image: &[u8]) -> Option<(&str, Option<&str>)> {
    if image.get(..2)? != b"#!" {
        return None;
    }
    // Work on a NUL-padded copy, exactly like Linux's bprm->buf, so that
    // its index arithmetic can be followed step by step.
    let mut buf = [0u8; BINPRM_BUF_SIZE];
    let n = image.len().min(BINPRM_BUF_SIZE);
    buf[..n].copy_from_slice(&image[..n]);
    let at = |buf: &[u8; BINPRM_BUF_SIZE], i: usize| buf.get(i).copied().unwrap_or(0);
    let last = BINPRM_BUF_SIZE - 1;

    let mut cp = match buf.iter().position(|&c| c == b'\n') {
        Some(newline) => newline,
        None => {
            // No newline: the path must end inside the buffer.
            let start = (2..=last).find(|&i| !space_or_tab(at(&buf, i)))?;
            (start..=last).find(|&i| space_or_tab(at(&buf, i)) || at(&buf, i) == 0)?;
            last
        }
    };
    // Terminate the line, then clear trailing blanks before the terminator.
    buf[cp] = 0;
    while cp > 0 {
        cp -= 1;
        if space_or_tab(buf[cp]) {
            buf[cp] = 0;
        } else {
            break;
        }
    }

    let mut i = 2;
    while space_or_tab(at(&buf, i)) {
        i += 1;
    }
    if at(&buf, i) == 0 {
        return None; // no interpreter name
    }
    let name_start = i;
    while at(&buf, i) != 0 && !space_or_tab(at(&buf, i)) {
        i += 1;
    }
    let name_end = i;
    while space_or_tab(at(&buf, i)) {
        i += 1;
    }
    let arg = if at(&buf, i) != 0 {
        let arg_start = i;
        while at(&buf, i) != 0 {
            i += 1;
        }
        Some((arg_start, i))
    } else {
        None
    };

    // Every byte returned is non-NUL in buf, hence within the image.
    let name = core::str::from_utf8(image.get(name_start..name_end)?).ok()?;
    let arg = match arg {
        Some((s, e)) => Some(core::str::from_utf8(image.get(s..e)?).ok()?),
        None => None,
    };
    Some((name, arg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple() {
        assert_eq!(is_script(b"#!/bin/sh\necho hi\n"), Some(("/bin/sh", None)));
        assert_eq!(is_script(b"#!/bin/sh -e\n"), Some(("/bin/sh", Some("-e"))));
        assert_eq!(is_script(b"#! /bin/sh\n"), Some(("/bin/sh", None)));
        assert_eq!(is_script(b"#!\t/bin/sh\t-x\t\n"), Some(("/bin/sh", Some("-x"))));
    }

    #[test]
    fn one_argument_keeps_inner_spaces() {
        assert_eq!(
            is_script(b"#!/usr/bin/env -S python3 -u  \nprint()\n"),
            Some(("/usr/bin/env", Some("-S python3 -u")))
        );
        assert_eq!(is_script(b"#!/bin/awk -f  a\tb \n"), Some(("/bin/awk", Some("-f  a\tb"))));
    }

    #[test]
    fn not_scripts() {
        assert_eq!(is_script(b""), None);
        assert_eq!(is_script(b"#"), None);
        assert_eq!(is_script(b"\x7fELF"), None);
        assert_eq!(is_script(b"# !/bin/sh\n"), None);
        assert_eq!(is_script(b"#!\n"), None);
        assert_eq!(is_script(b"#!   \t \n/bin/sh"), None);
        assert_eq!(is_script(b"#!"), None);
    }

    #[test]
    fn no_newline_short_file() {
        // The NUL padding ends the path.
        assert_eq!(is_script(b"#!/bin/sh"), Some(("/bin/sh", None)));
        // Without a newline, trailing blanks are not stripped (Linux strips
        // from the end of the 256-byte buffer, which is NUL padding here).
        assert_eq!(is_script(b"#!/bin/sh -x "), Some(("/bin/sh", Some("-x "))));
    }

    #[test]
    fn carriage_return_is_kept() {
        assert_eq!(is_script(b"#!/bin/sh\r\n"), Some(("/bin/sh\r", None)));
        assert_eq!(is_script(b"#!/bin/sh -e\r\n"), Some(("/bin/sh", Some("-e\r"))));
    }

    #[test]
    fn nul_ends_the_line() {
        assert_eq!(is_script(b"#!/bin/sh\0 -x\n"), Some(("/bin/sh", None)));
        assert_eq!(is_script(b"#!/bin/sh -x\0y\n"), Some(("/bin/sh", Some("-x"))));
        // Blanks before a NUL are stripped only when they precede the
        // newline directly, as in Linux.
        assert_eq!(is_script(b"#!/bin/sh -x \0y\n"), Some(("/bin/sh", Some("-x "))));
    }

    #[test]
    fn long_lines() {
        // A path that does not end within 256 bytes is refused.
        let mut long = b"#!/".to_vec();
        long.extend(core::iter::repeat(b'a').take(300));
        long.push(b'\n');
        assert_eq!(is_script(&long), None);

        // A path that ends in time, with an argument cut at byte 255.
        let mut cut = b"#!/bin/sh ".to_vec();
        cut.extend(core::iter::repeat(b'b').take(300));
        let (name, arg) = is_script(&cut).unwrap();
        assert_eq!(name, "/bin/sh");
        assert_eq!(arg.unwrap().len(), BINPRM_BUF_SIZE - 1 - 10);

        // A newline beyond byte 256 does not count.
        let mut late = b"#!/bin/sh ".to_vec();
        late.extend(core::iter::repeat(b'c').take(260));
        late.extend_from_slice(b"\n");
        assert_eq!(is_script(&late).unwrap().1.unwrap().len(), BINPRM_BUF_SIZE - 1 - 10);

        // A newline at the very last byte of the buffer.
        let mut edge = b"#!/bin/sh ".to_vec();
        edge.extend(core::iter::repeat(b'd').take(BINPRM_BUF_SIZE - 11));
        edge.push(b'\n');
        assert_eq!(edge.len(), BINPRM_BUF_SIZE);
        assert_eq!(is_script(&edge).unwrap().1.unwrap().len(), BINPRM_BUF_SIZE - 11);
    }

    #[test]
    fn path_ending_exactly_at_the_buffer_end() {
        // 254 path bytes after "#!", no terminator inside the buffer: the
        // path might be truncated, so Linux refuses.
        let mut v = b"#!".to_vec();
        v.extend(core::iter::repeat(b'p').take(BINPRM_BUF_SIZE - 2));
        assert_eq!(is_script(&v), None);
        // One byte shorter: the NUL padding terminates it.
        v.pop();
        let (name, _) = is_script(&v).unwrap();
        assert_eq!(name.len(), BINPRM_BUF_SIZE - 3);
    }

    #[test]
    fn non_utf8_is_refused() {
        assert_eq!(is_script(b"#!/bin/\xff\n"), None);
        assert_eq!(is_script(b"#!/bin/sh \xff\n"), None);
    }
}

//! Host tests of the line discipline: each case is what Linux's n_tty does
//! with the same settings and input.

use linux_raw_sys::general as abi;

use crate::{Effects, JobSignal, LineDiscipline, Termios, Winsize, BUFFER_SIZE};

fn cooked() -> LineDiscipline {
    LineDiscipline::new(Termios::standard())
}

fn with_lflag(clear: u32, set: u32) -> LineDiscipline {
    let mut t = Termios::standard();
    t.lflag = (t.lflag & !clear) | set;
    LineDiscipline::new(t)
}

fn feed(ld: &mut LineDiscipline, bytes: &[u8]) -> Effects {
    let mut fx = Effects::default();
    let taken = ld.receive(bytes, &mut fx);
    assert_eq!(taken, bytes.len());
    fx
}

fn read_all(ld: &mut LineDiscipline) -> Vec<u8> {
    let mut buf = [0u8; 8192];
    let n = ld.read(&mut buf);
    buf[..n].to_vec()
}

#[test]
fn termios_round_trip_and_defaults() {
    let t = Termios::standard();
    let raw = t.to_bytes();
    assert_eq!(Termios::from_bytes(&raw), t);
    // What Linux reports for a new pty slave: i=2400 o=5 c=277 l=105073 (octal).
    let pty = Termios::pty_slave();
    assert_eq!((pty.iflag, pty.oflag, pty.cflag, pty.lflag), (0o2400, 0o5, 0o277, 0o105073));
    assert_eq!(pty.cc, [3, 28, 127, 21, 4, 0, 1, 0, 17, 19, 26, 0, 18, 15, 23, 22, 0, 0, 0]);
    let w = Winsize { rows: 24, cols: 80, xpixel: 1, ypixel: 2 };
    assert_eq!(Winsize::from_bytes(&w.to_bytes()), w);
}

#[test]
fn canonical_line_with_echo() {
    let mut ld = cooked();
    let fx = feed(&mut ld, b"ab");
    assert_eq!(fx.output, b"ab");
    assert!(!ld.input_available(false));
    assert_eq!(ld.readable_bytes(), 0);
    let fx = feed(&mut ld, b"\r");
    assert_eq!(fx.output, b"\r\n");
    assert!(ld.input_available(false));
    assert_eq!(ld.readable_bytes(), 3);
    assert_eq!(read_all(&mut ld), b"ab\n");
    assert!(!ld.input_available(false));
}

#[test]
fn one_line_per_read_and_partial_reads() {
    let mut ld = cooked();
    feed(&mut ld, b"one\ntwo\n");
    let mut small = [0u8; 2];
    assert_eq!(ld.read(&mut small), 2);
    assert_eq!(&small, b"on");
    assert_eq!(read_all(&mut ld), b"e\n");
    assert_eq!(read_all(&mut ld), b"two\n");
}

#[test]
fn erase_and_control_characters() {
    let mut ld = cooked();
    let fx = feed(&mut ld, b"abc\x7f\n");
    assert_eq!(fx.output, b"abc\x08 \x08\r\n");
    assert_eq!(read_all(&mut ld), b"ab\n");
    // A control character echoes as ^A and takes two columns to erase.
    let fx = feed(&mut ld, b"a\x01\x7f");
    assert_eq!(fx.output, b"a^A\x08 \x08\x08 \x08");
    // Nothing to erase: no echo.
    let mut ld = cooked();
    assert_eq!(feed(&mut ld, b"\x7f").output, b"");
}

#[test]
fn erase_without_echoe_echoes_the_erase_character() {
    let mut ld = with_lflag(abi::ECHOE, 0);
    assert_eq!(feed(&mut ld, b"ab\x7f").output, b"ab^?");
    feed(&mut ld, b"\n");
    assert_eq!(read_all(&mut ld), b"a\n");
}

#[test]
fn word_erase() {
    let mut ld = cooked();
    feed(&mut ld, b"foo bar  \x17x\n");
    assert_eq!(read_all(&mut ld), b"foo x\n");
    // Trailing punctuation goes with the word before it.
    feed(&mut ld, b"a foo_1-\x17\n");
    assert_eq!(read_all(&mut ld), b"a \n");
    feed(&mut ld, b"foo_1\x17\n");
    assert_eq!(read_all(&mut ld), b"\n");
}

#[test]
fn kill_line() {
    let mut ld = cooked();
    let fx = feed(&mut ld, b"abc\x15");
    assert_eq!(fx.output, b"abc\x08 \x08\x08 \x08\x08 \x08");
    feed(&mut ld, b"d\n");
    assert_eq!(read_all(&mut ld), b"d\n");
    // Without ECHOKE: the kill character, then a newline for ECHOK.
    let mut ld = with_lflag(abi::ECHOKE, 0);
    assert_eq!(feed(&mut ld, b"abc\x15").output, b"abc^U\r\n");
    // Without echo the line just goes.
    let mut ld = with_lflag(abi::ECHO, 0);
    assert_eq!(feed(&mut ld, b"abc\x15x\n").output, b"");
    assert_eq!(read_all(&mut ld), b"x\n");
}

#[test]
fn erasing_a_tab_goes_back_to_its_start() {
    let mut ld = cooked();
    let fx = feed(&mut ld, b"a\tb\x7f\x7f");
    let mut want = b"a\tb\x08 \x08".to_vec();
    want.extend([0x08; 7]);
    assert_eq!(fx.output, want);
    // After a prompt: the line starts at column 2, the tab reached column 8.
    let mut ld = cooked();
    let mut out = Vec::new();
    ld.process_output(b"$ ", &mut out, usize::MAX);
    let fx = feed(&mut ld, b"\t\x7f");
    assert_eq!(fx.output, b"\t\x08\x08\x08\x08\x08\x08");
}

#[test]
fn end_of_file() {
    let mut ld = cooked();
    feed(&mut ld, b"\x04");
    assert!(ld.input_available(false));
    assert_eq!(ld.readable_bytes(), 0);
    assert_eq!(read_all(&mut ld), b"");
    assert!(!ld.input_available(false));
    let fx = feed(&mut ld, b"ab\x04");
    assert_eq!(fx.output, b"ab", "no echo for VEOF");
    assert_eq!(read_all(&mut ld), b"ab");
    feed(&mut ld, b"ab\n\x04");
    assert_eq!(ld.readable_bytes(), 3);
}

#[test]
fn signal_characters() {
    let mut ld = cooked();
    let fx = feed(&mut ld, b"ab\x03");
    assert_eq!(fx.signals, [JobSignal::Interrupt]);
    // The flush drops the input and the echo of the same batch.
    assert_eq!(fx.output, b"^C");
    feed(&mut ld, b"\n");
    assert_eq!(read_all(&mut ld), b"\n");
    let fx = feed(&mut ld, b"\x1c\x1a");
    assert_eq!(fx.signals, [JobSignal::Quit, JobSignal::Suspend]);
    // The second flush drops the first one's echo: both came in one batch.
    assert_eq!(fx.output, b"^Z");
    assert_eq!(feed(&mut ld, b"\x1c").output, b"^\\");
    // NOFLSH keeps the input.
    let mut ld = with_lflag(0, abi::NOFLSH);
    let fx = feed(&mut ld, b"ab\x03\n");
    assert_eq!(fx.output, b"ab^C\r\n");
    assert_eq!(read_all(&mut ld), b"ab\n");
    // Without ISIG ^C is a character.
    let mut ld = with_lflag(abi::ISIG, 0);
    let fx = feed(&mut ld, b"\x03\n");
    assert!(fx.signals.is_empty());
    assert_eq!(read_all(&mut ld), b"\x03\n");
    // Signals work in raw mode too.
    let mut ld = with_lflag(abi::ICANON | abi::ECHO, 0);
    assert_eq!(feed(&mut ld, b"x\x03").signals, [JobSignal::Interrupt]);
    assert_eq!(ld.readable_bytes(), 0);
}

#[test]
fn literal_next_and_reprint() {
    let mut ld = cooked();
    let fx = feed(&mut ld, b"\x16\x03\n");
    assert!(fx.signals.is_empty());
    assert_eq!(fx.output, b"^\x08^C\r\n");
    assert_eq!(read_all(&mut ld), b"\x03\n");
    let fx = feed(&mut ld, b"ab\x12");
    assert_eq!(fx.output, b"ab^R\r\nab");
}

#[test]
fn echoprt_shows_erased_characters() {
    let mut ld = with_lflag(0, abi::ECHOPRT);
    let fx = feed(&mut ld, b"abc\x7f\x7fd");
    assert_eq!(fx.output, b"abc\\cb/d");
}

#[test]
fn echonl_without_echo() {
    let mut ld = with_lflag(abi::ECHO, abi::ECHONL);
    assert_eq!(feed(&mut ld, b"ab\n").output, b"\r\n");
}

#[test]
fn carriage_return_translation() {
    let mut t = Termios::standard();
    t.iflag = 0;
    let mut ld = LineDiscipline::new(t);
    t.lflag &= !abi::ICANON;
    ld.set_termios(t);
    feed(&mut ld, b"a\rb\n");
    assert_eq!(read_all(&mut ld), b"a\rb\n");
    t.iflag = abi::INLCR;
    ld.set_termios(t);
    feed(&mut ld, b"\n");
    assert_eq!(read_all(&mut ld), b"\r");
    t.iflag = abi::IGNCR | abi::ICRNL;
    ld.set_termios(t);
    feed(&mut ld, b"\rx");
    assert_eq!(read_all(&mut ld), b"x");
}

#[test]
fn raw_mode_reads_everything_without_echo() {
    let mut ld = with_lflag(abi::ICANON | abi::ECHO, 0);
    let fx = feed(&mut ld, b"ab\x7f");
    assert_eq!(fx.output, b"");
    assert!(ld.input_available(false));
    assert_eq!(ld.readable_bytes(), 3);
    assert_eq!(read_all(&mut ld), b"ab\x7f");
    // Echo in raw mode: control characters as ^X, newline as \r\n.
    let mut ld = with_lflag(abi::ICANON, 0);
    assert_eq!(feed(&mut ld, b"a\x01\r").output, b"a^A\r\n");
}

#[test]
fn read_policy_follows_vmin_and_vtime() {
    let mut t = Termios::standard();
    t.lflag &= !abi::ICANON;
    t.cc[abi::VMIN as usize] = 3;
    t.cc[abi::VTIME as usize] = 0;
    let mut ld = LineDiscipline::new(t);
    let p = ld.read_policy();
    assert_eq!((p.minimum, p.first_timeout_ns, p.inter_byte_timeout_ns), (3, None, None));
    feed(&mut ld, b"ab");
    assert!(ld.input_available(false));
    assert!(!ld.input_available(true), "poll waits for VMIN bytes when VTIME is 0");
    t.cc[abi::VTIME as usize] = 5;
    ld.set_termios(t);
    assert!(ld.input_available(true));
    assert_eq!(ld.read_policy().inter_byte_timeout_ns, Some(500_000_000));
    t.cc[abi::VMIN as usize] = 0;
    ld.set_termios(t);
    let p = ld.read_policy();
    assert_eq!((p.minimum, p.first_timeout_ns), (1, Some(500_000_000)));
    let p = cooked().read_policy();
    assert_eq!((p.minimum, p.first_timeout_ns), (0, None));
}

#[test]
fn switching_modes_keeps_input() {
    let mut ld = cooked();
    feed(&mut ld, b"one\nab");
    let mut t = Termios::standard();
    t.lflag &= !abi::ICANON;
    ld.set_termios(t);
    assert_eq!(read_all(&mut ld), b"one\nab");
    feed(&mut ld, b"xy");
    ld.set_termios(Termios::standard());
    assert!(ld.input_available(false));
    assert_eq!(read_all(&mut ld), b"xy");
}

#[test]
fn flow_control() {
    let mut ld = cooked();
    let fx = feed(&mut ld, b"\x13");
    assert!(ld.output_stopped());
    assert!(!fx.output_started);
    let fx = feed(&mut ld, b"\x11");
    assert!(!ld.output_stopped());
    assert!(fx.output_started);
    assert_eq!(ld.readable_bytes() + ld.input_available(false) as usize, 0);
    // IXANY: any character restarts; turning IXON off restarts too.
    let mut t = Termios::standard();
    t.iflag |= abi::IXANY;
    let mut ld = LineDiscipline::new(t);
    feed(&mut ld, b"\x13");
    assert!(feed(&mut ld, b"a").output_started);
    feed(&mut ld, b"\x13");
    t.iflag &= !abi::IXON;
    assert!(ld.set_termios(t));
    assert!(!ld.output_stopped());
}

#[test]
fn output_processing() {
    let mut ld = cooked();
    let mut out = Vec::new();
    assert_eq!(ld.process_output(b"a\nb", &mut out, usize::MAX), 3);
    assert_eq!(out, b"a\r\nb");
    // Not enough room for the \r\n expansion: stop before it.
    out.clear();
    assert_eq!(ld.process_output(b"a\n", &mut out, 2), 1);
    assert_eq!(out, b"a");
    let mut t = Termios::standard();
    t.oflag = abi::OPOST | abi::XTABS | abi::OCRNL | abi::OLCUC;
    let mut ld = LineDiscipline::new(t);
    out.clear();
    ld.process_output(b"\rab\tc", &mut out, usize::MAX);
    assert_eq!(out, b"\nAB      C");
    t.oflag = 0;
    ld.set_termios(t);
    out.clear();
    ld.process_output(b"a\nb", &mut out, usize::MAX);
    assert_eq!(out, b"a\nb");
}

#[test]
fn disabled_characters_never_match() {
    let mut t = Termios::standard();
    t.cc[abi::VINTR as usize] = 0;
    let mut ld = LineDiscipline::new(t);
    let fx = feed(&mut ld, b"\0\x03\n");
    assert!(fx.signals.is_empty());
    assert_eq!(read_all(&mut ld), b"\0\x03\n");
}

#[test]
fn buffer_limits() {
    let mut ld = with_lflag(abi::ICANON | abi::ECHO, 0);
    let data = vec![b'x'; 5000];
    let mut fx = Effects::default();
    assert_eq!(ld.receive(&data, &mut fx), BUFFER_SIZE - 1);
    assert!(ld.is_full());
    let mut buf = [0u8; 100];
    assert_eq!(ld.read(&mut buf), 100);
    assert!(!ld.is_full());
    // An overlong canonical line keeps taking characters (the newest gives
    // way), so the newline still ends it.
    let mut ld = with_lflag(abi::ECHO, 0);
    let mut fx = Effects::default();
    assert_eq!(ld.receive(&data, &mut fx), 5000);
    feed(&mut ld, b"\n");
    let line = read_all(&mut ld);
    assert_eq!(line.len(), BUFFER_SIZE - 1);
    assert_eq!(line.last(), Some(&b'\n'));
}

#[test]
fn flush_input_discards_everything() {
    let mut ld = cooked();
    feed(&mut ld, b"done\npartial");
    ld.flush_input();
    assert!(!ld.input_available(false));
    feed(&mut ld, b"\n");
    assert_eq!(read_all(&mut ld), b"\n");
}

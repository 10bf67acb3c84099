//! The line discipline: what Linux's `n_tty` does between a terminal device
//! and its readers and writers.
//!
//! Input arrives from the device through [`LineDiscipline::receive`]. In
//! canonical mode bytes collect in an editing line (erase, word-erase,
//! kill, literal-next, reprint) until a line terminator commits the line
//! to readers; otherwise every byte is readable at once. Echo is produced
//! as Linux does: echo operations accumulate while a batch of input is
//! processed and are turned into device output at the end of the batch,
//! with output processing and column tracking applied then (so a signal
//! character that flushes input also discards the echo of the same batch).
//!
//! Output from writers goes through [`LineDiscipline::process_output`].

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use linux_raw_sys::general as abi;

use crate::termios::Termios;

/// The size of the input buffer (Linux's N_TTY_BUF_SIZE); one slot stays
/// free, so at most `BUFFER_SIZE - 1` bytes wait for readers.
pub const BUFFER_SIZE: usize = 4096;
const CAPACITY: usize = BUFFER_SIZE - 1;

/// Flag of a buffer entry that ends a canonical line.
const LINE_END: u16 = 1 << 8;
/// Flag of the entry an end-of-file character leaves: it ends the line but
/// is never copied to the reader.
const EOF_MARK: u16 = 1 << 9;

/// A signal an input character asks for, sent by the kernel to the
/// terminal's foreground process group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobSignal {
    /// VINTR (^C): SIGINT.
    Interrupt,
    /// VQUIT (^\): SIGQUIT.
    Quit,
    /// VSUSP (^Z): SIGTSTP.
    Suspend,
}

/// What processing a batch of input asks the kernel to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// Echo for the device, output processing already applied.
    pub output: Vec<u8>,
    /// Signals for the foreground process group, in input order.
    pub signals: Vec<JobSignal>,
    /// Output was restarted (a VSTART character, or IXANY): writers that
    /// waited may go on.
    pub output_started: bool,
}

/// How a non-canonical read waits (VMIN and VTIME), in the terms of
/// Linux's `n_tty_read`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPolicy {
    /// The read is complete once this many bytes were copied (0 in
    /// canonical mode: one line, or what fits, ends it).
    pub minimum: usize,
    /// How long to wait for the first byte: None forever, Some(0) not at
    /// all (nanoseconds).
    pub first_timeout_ns: Option<u64>,
    /// The timer restarted after each byte when VMIN and VTIME are both
    /// set (nanoseconds).
    pub inter_byte_timeout_ns: Option<u64>,
}

/// One echo operation, turned into output at the end of a batch (as
/// Linux's echo buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EchoOp {
    /// A byte, through output processing.
    Byte(u8),
    /// A control character shown as `^X`.
    Control(u8),
    /// Back over a tab: the column count of what precedes it on the line,
    /// with 0x80 set when counted from a previous tab (as Linux encodes it).
    EraseTab(u8),
    /// Remember the current column as the start of the line.
    SetCanonColumn,
    /// The cursor moved back one column (ECHOPRT of multibyte characters).
    MoveBackColumn,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum EraseKind {
    Char,
    Word,
    Line,
}

fn is_control(c: u8) -> bool {
    c < 0x20 || c == 0x7f
}

/// A terminal's line discipline state: settings, buffered input, pending
/// echo and the output column.
#[derive(Clone, Debug)]
pub struct LineDiscipline {
    termios: Termios,
    /// Input: the low byte of each entry is the character, with LINE_END
    /// and EOF_MARK as flags.
    buf: VecDeque<u16>,
    /// How many entries at the front readers may take: complete lines in
    /// canonical mode, everything otherwise. The rest is the line being
    /// edited.
    committed: usize,
    echoes: Vec<EchoOp>,
    /// The output column, and the column where the current input line
    /// started (for erasing tabs).
    column: usize,
    canon_column: usize,
    /// ECHOPRT: inside a `\...` erase sequence.
    erasing: bool,
    /// The next character is taken literally (VLNEXT).
    lnext: bool,
    /// Output stopped by VSTOP (IXON).
    stopped: bool,
}

impl LineDiscipline {
    /// Creates an empty line discipline with `termios`.
    pub fn new(termios: Termios) -> LineDiscipline {
        LineDiscipline {
            termios,
            buf: VecDeque::new(),
            committed: 0,
            echoes: Vec::new(),
            column: 0,
            canon_column: 0,
            erasing: false,
            lnext: false,
            stopped: false,
        }
    }

    /// Returns the settings.
    pub fn termios(&self) -> &Termios {
        &self.termios
    }

    /// Changes the settings. Switching canonical mode on or off re-reads
    /// the buffer as Linux does: leaving canonical mode makes everything
    /// readable, including the line being edited; entering it turns what
    /// is buffered into one line. Turning IXON off restarts stopped output;
    /// returns whether it did.
    pub fn set_termios(&mut self, termios: Termios) -> bool {
        let old = self.termios;
        self.termios = termios;
        if (old.lflag ^ termios.lflag) & abi::ICANON != 0 {
            for entry in self.buf.iter_mut() {
                *entry &= !LINE_END;
            }
            if termios.canonical() {
                if let Some(last) = self.buf.back_mut() {
                    *last |= LINE_END;
                }
            }
            self.committed = self.buf.len();
            self.erasing = false;
            self.lnext = false;
        }
        if !termios.input(abi::IXON) && old.input(abi::IXON) && self.stopped {
            self.stopped = false;
            return true;
        }
        false
    }

    /// Returns whether output is stopped by VSTOP.
    pub fn output_stopped(&self) -> bool {
        self.stopped
    }

    /// Stops or restarts output (TCXONC's TCOOFF and TCOON).
    pub fn set_output_stopped(&mut self, stopped: bool) {
        self.stopped = stopped;
    }

    /// Discards all input, complete lines and the line being edited
    /// (TCFLSH, and signal characters without NOFLSH).
    pub fn flush_input(&mut self) {
        self.buf.clear();
        self.committed = 0;
        self.erasing = false;
        self.lnext = false;
    }

    /// Returns whether no more input fits: the kernel stops feeding bytes
    /// until a reader makes room.
    pub fn is_full(&self) -> bool {
        // In canonical mode an overlong line still takes characters (the
        // last one is replaced) so that erase and newline keep working.
        self.buf.len() >= CAPACITY && !(self.termios.canonical() && self.committed == 0)
    }

    /// Processes input bytes from the device. Returns how many were taken:
    /// fewer than given when the buffer is full (the rest should be offered
    /// again once a reader made room). Echo, signals and flow changes are
    /// added to `effects`.
    pub fn receive(&mut self, bytes: &[u8], effects: &mut Effects) -> usize {
        let mut taken = 0;
        for &byte in bytes {
            if self.is_full() {
                break;
            }
            self.receive_byte(byte, effects);
            taken += 1;
        }
        self.flush_echoes(&mut effects.output);
        taken
    }

    fn input_translate(&self, mut c: u8) -> u8 {
        if self.termios.input(abi::ISTRIP) {
            c &= 0x7f;
        }
        if self.termios.input(abi::IUCLC) && self.termios.local(abi::IEXTEN) {
            c = c.to_ascii_lowercase();
        }
        c
    }

    fn is_continuation(&self, c: u8) -> bool {
        self.termios.input(abi::IUTF8) && c & 0xc0 == 0x80
    }

    fn receive_byte(&mut self, byte: u8, effects: &mut Effects) {
        let t = self.termios;
        let mut c = self.input_translate(byte);
        if self.lnext {
            self.lnext = false;
            self.receive_plain(c, effects);
            return;
        }
        if t.input(abi::IXON) {
            if t.is_char(abi::VSTART, c) {
                if self.stopped {
                    self.stopped = false;
                    effects.output_started = true;
                }
                return;
            }
            if t.is_char(abi::VSTOP, c) {
                self.stopped = true;
                return;
            }
        }
        if t.local(abi::ISIG) {
            let signal = if t.is_char(abi::VINTR, c) {
                Some(JobSignal::Interrupt)
            } else if t.is_char(abi::VQUIT, c) {
                Some(JobSignal::Quit)
            } else if t.is_char(abi::VSUSP, c) {
                Some(JobSignal::Suspend)
            } else {
                None
            };
            if let Some(signal) = signal {
                self.receive_signal(signal, c, effects);
                return;
            }
        }
        self.restart_on_any(effects);
        if c == b'\r' {
            if t.input(abi::IGNCR) {
                return;
            }
            if t.input(abi::ICRNL) {
                c = b'\n';
            }
        } else if c == b'\n' && t.input(abi::INLCR) {
            c = b'\r';
        }
        if t.canonical() {
            let extended = t.local(abi::IEXTEN);
            if t.is_char(abi::VERASE, c) || t.is_char(abi::VKILL, c) || (t.is_char(abi::VWERASE, c) && extended) {
                self.erase(c);
                return;
            }
            if t.is_char(abi::VLNEXT, c) && extended {
                self.lnext = true;
                if t.local(abi::ECHO) {
                    self.finish_erasing();
                    if t.local(abi::ECHOCTL) {
                        self.echoes.push(EchoOp::Byte(b'^'));
                        self.echoes.push(EchoOp::Byte(0x08));
                    }
                }
                return;
            }
            if t.is_char(abi::VREPRINT, c) && t.local(abi::ECHO) && extended {
                self.finish_erasing();
                self.echo_char(c);
                self.echoes.push(EchoOp::Byte(b'\n'));
                for i in self.committed..self.buf.len() {
                    let b = self.buf[i] as u8;
                    self.echo_char(b);
                }
                return;
            }
            if c == b'\n' {
                if t.local(abi::ECHO) || t.local(abi::ECHONL) {
                    self.echoes.push(EchoOp::Byte(b'\n'));
                }
                self.commit_line(u16::from(c));
                return;
            }
            if t.is_char(abi::VEOF, c) {
                self.commit_line(EOF_MARK);
                return;
            }
            if t.is_char(abi::VEOL, c) || (t.is_char(abi::VEOL2, c) && extended) {
                if t.local(abi::ECHO) {
                    if self.line_is_empty() {
                        self.echoes.push(EchoOp::SetCanonColumn);
                    }
                    self.echo_char(c);
                }
                self.commit_line(u16::from(c));
                return;
            }
        }
        if t.local(abi::ECHO) {
            self.finish_erasing();
            if c == b'\n' {
                self.echoes.push(EchoOp::Byte(b'\n'));
            } else {
                if self.line_is_empty() {
                    self.echoes.push(EchoOp::SetCanonColumn);
                }
                self.echo_char(c);
            }
        }
        self.push(u16::from(c));
    }

    /// A character with no special meaning (also the one after VLNEXT).
    fn receive_plain(&mut self, c: u8, effects: &mut Effects) {
        self.restart_on_any(effects);
        if self.termios.local(abi::ECHO) {
            self.finish_erasing();
            if self.line_is_empty() {
                self.echoes.push(EchoOp::SetCanonColumn);
            }
            self.echo_char(c);
        }
        self.push(u16::from(c));
    }

    fn restart_on_any(&mut self, effects: &mut Effects) {
        if self.stopped && self.termios.input(abi::IXON | abi::IXANY) {
            self.stopped = false;
            effects.output_started = true;
        }
    }

    fn receive_signal(&mut self, signal: JobSignal, c: u8, effects: &mut Effects) {
        effects.signals.push(signal);
        if !self.termios.local(abi::NOFLSH) {
            // Linux drops pending echo along with the input.
            self.echoes.clear();
            self.flush_input();
        }
        if self.termios.input(abi::IXON) && self.stopped {
            self.stopped = false;
            effects.output_started = true;
        }
        if self.termios.local(abi::ECHO) {
            self.echo_char(c);
        }
    }

    /// Whether the line being edited is empty (in non-canonical mode:
    /// whether nothing is buffered).
    fn line_is_empty(&self) -> bool {
        self.buf.len() == self.committed && (self.termios.canonical() || self.buf.is_empty())
    }

    fn push(&mut self, entry: u16) {
        if self.buf.len() >= CAPACITY {
            if self.termios.canonical() && self.committed == 0 && !self.buf.is_empty() {
                // An overlong line: the newest character gives way.
                self.buf.pop_back();
            } else {
                return;
            }
        }
        self.buf.push_back(entry);
        if !self.termios.canonical() {
            self.committed = self.buf.len();
        }
    }

    fn commit_line(&mut self, entry: u16) {
        self.push(entry | LINE_END);
        self.committed = self.buf.len();
    }

    fn echo_char(&mut self, c: u8) {
        if self.termios.local(abi::ECHOCTL) && is_control(c) && c != b'\t' {
            self.echoes.push(EchoOp::Control(c));
        } else {
            self.echoes.push(EchoOp::Byte(c));
        }
    }

    fn finish_erasing(&mut self) {
        if self.erasing {
            self.echoes.push(EchoOp::Byte(b'/'));
            self.erasing = false;
        }
    }

    /// VERASE, VWERASE and VKILL: takes characters off the line being
    /// edited, echoing as ECHOE, ECHOK, ECHOKE, ECHOPRT and ECHOCTL ask.
    fn erase(&mut self, c: u8) {
        let t = self.termios;
        if self.buf.len() == self.committed {
            return;
        }
        let echo = t.local(abi::ECHO);
        let kind = if t.is_char(abi::VERASE, c) {
            EraseKind::Char
        } else if t.is_char(abi::VWERASE, c) {
            EraseKind::Word
        } else {
            if !echo {
                self.buf.truncate(self.committed);
                return;
            }
            if !t.local(abi::ECHOK) || !t.local(abi::ECHOKE) || !t.local(abi::ECHOE) {
                self.buf.truncate(self.committed);
                self.finish_erasing();
                self.echo_char(c);
                if t.local(abi::ECHOK) {
                    self.echoes.push(EchoOp::Byte(b'\n'));
                }
                return;
            }
            EraseKind::Line
        };
        let mut seen_alnums = 0;
        while self.buf.len() > self.committed {
            // One character, which may be several bytes with IUTF8.
            let mut head = self.buf.len();
            let mut ch;
            loop {
                head -= 1;
                ch = self.buf[head] as u8;
                if !(self.is_continuation(ch) && head > self.committed) {
                    break;
                }
            }
            if self.is_continuation(ch) {
                break; // never erase part of a character
            }
            if kind == EraseKind::Word {
                // BSD's ALTWERASE: a word is letters, digits and '_'.
                if ch.is_ascii_alphanumeric() || ch == b'_' {
                    seen_alnums += 1;
                } else if seen_alnums > 0 {
                    break;
                }
            }
            let erased: Vec<u8> = self.buf.range(head..).map(|&e| e as u8).collect();
            self.buf.truncate(head);
            if echo {
                if t.local(abi::ECHOPRT) {
                    if !self.erasing {
                        self.echoes.push(EchoOp::Byte(b'\\'));
                        self.erasing = true;
                    }
                    self.echo_char(ch);
                    for &b in &erased[1..] {
                        self.echoes.push(EchoOp::Byte(b));
                        self.echoes.push(EchoOp::MoveBackColumn);
                    }
                } else if kind == EraseKind::Char && !t.local(abi::ECHOE) {
                    self.echo_char(t.cc(abi::VERASE));
                } else if ch == b'\t' {
                    self.echo_erase_tab(head);
                } else {
                    let control = is_control(ch);
                    let echoctl = t.local(abi::ECHOCTL);
                    if control && echoctl {
                        self.echoes.extend([EchoOp::Byte(0x08), EchoOp::Byte(b' '), EchoOp::Byte(0x08)]);
                    }
                    if !control || echoctl {
                        self.echoes.extend([EchoOp::Byte(0x08), EchoOp::Byte(b' '), EchoOp::Byte(0x08)]);
                    }
                }
            }
            if kind == EraseKind::Char {
                break;
            }
        }
        if self.buf.len() == self.committed && echo {
            self.finish_erasing();
        }
    }

    /// Queues the backspaces that erase a tab that was at `tab_index`: how
    /// far it reached depends on what precedes it back to the previous tab
    /// or the start of the line.
    fn echo_erase_tab(&mut self, tab_index: usize) {
        let mut columns: u32 = 0;
        let mut after_tab = false;
        for i in (self.committed..tab_index).rev() {
            let c = self.buf[i] as u8;
            if c == b'\t' {
                after_tab = true;
                break;
            } else if is_control(c) {
                if self.termios.local(abi::ECHOCTL) {
                    columns += 2;
                }
            } else if !self.is_continuation(c) {
                columns += 1;
            }
        }
        let mut encoded = columns as u8;
        if after_tab {
            encoded |= 0x80;
        }
        self.echoes.push(EchoOp::EraseTab(encoded));
    }

    fn flush_echoes(&mut self, out: &mut Vec<u8>) {
        let ops = core::mem::take(&mut self.echoes);
        let post = self.termios.output(abi::OPOST);
        for op in ops {
            match op {
                EchoOp::Byte(c) => {
                    if post {
                        self.output_char(c, out, usize::MAX);
                    } else {
                        out.push(c);
                    }
                }
                EchoOp::Control(c) => {
                    out.push(b'^');
                    out.push(c ^ 0x40);
                    self.column += 2;
                }
                EchoOp::EraseTab(encoded) => {
                    let mut columns = usize::from(encoded);
                    if encoded & 0x80 == 0 {
                        columns += self.canon_column;
                    }
                    for _ in 0..8 - (columns & 7) {
                        out.push(0x08);
                        self.column = self.column.saturating_sub(1);
                    }
                }
                EchoOp::SetCanonColumn => self.canon_column = self.column,
                EchoOp::MoveBackColumn => self.column = self.column.saturating_sub(1),
            }
        }
    }

    /// Output processing of one byte (Linux's `do_output_char`), if the
    /// result fits in `room` bytes; returns whether it did.
    fn output_char(&mut self, c: u8, out: &mut Vec<u8>, room: usize) -> bool {
        let t = self.termios;
        let mut c = c;
        match c {
            b'\n' => {
                if t.output(abi::ONLCR) {
                    if room < 2 {
                        return false;
                    }
                    self.canon_column = 0;
                    self.column = 0;
                    out.extend_from_slice(b"\r\n");
                    return true;
                }
                if room < 1 {
                    return false;
                }
                if t.output(abi::ONLRET) {
                    self.column = 0;
                }
                self.canon_column = self.column;
            }
            b'\r' => {
                if t.output(abi::ONOCR) && self.column == 0 {
                    return true;
                }
                if room < 1 {
                    return false;
                }
                if t.output(abi::OCRNL) {
                    c = b'\n';
                    if t.output(abi::ONLRET) {
                        self.canon_column = 0;
                        self.column = 0;
                    }
                } else {
                    self.canon_column = 0;
                    self.column = 0;
                }
            }
            b'\t' => {
                let spaces = 8 - (self.column & 7);
                if t.oflag & abi::TABDLY == abi::XTABS {
                    if room < spaces {
                        return false;
                    }
                    self.column += spaces;
                    out.extend(core::iter::repeat_n(b' ', spaces));
                    return true;
                }
                if room < 1 {
                    return false;
                }
                self.column += spaces;
            }
            0x08 => {
                if room < 1 {
                    return false;
                }
                self.column = self.column.saturating_sub(1);
            }
            _ => {
                if room < 1 {
                    return false;
                }
                if !is_control(c) {
                    if t.output(abi::OLCUC) {
                        c = c.to_ascii_uppercase();
                    }
                    if !self.is_continuation(c) {
                        self.column += 1;
                    }
                }
            }
        }
        out.push(c);
        true
    }

    /// Applies output processing (OPOST: ONLCR, OCRNL, ONOCR, ONLRET,
    /// OLCUC, XTABS; column tracking) to bytes a program writes, appending
    /// the result to `out` while it stays within `room` bytes. Returns how
    /// many of `data` were consumed.
    pub fn process_output(&mut self, data: &[u8], out: &mut Vec<u8>, room: usize) -> usize {
        if !self.termios.output(abi::OPOST) {
            let n = data.len().min(room);
            out.extend_from_slice(&data[..n]);
            return n;
        }
        let start = out.len();
        for (i, &c) in data.iter().enumerate() {
            let used = out.len() - start;
            if !self.output_char(c, out, room - used) {
                return i;
            }
        }
        data.len()
    }

    /// Returns whether a read would find input now. With `for_poll` set,
    /// non-canonical input with VMIN > 0 and VTIME = 0 counts only once
    /// VMIN bytes are there (as Linux's poll does).
    pub fn input_available(&self, for_poll: bool) -> bool {
        if self.termios.canonical() {
            return self.committed > 0;
        }
        let min = usize::from(self.termios.cc(abi::VMIN));
        let wanted = if for_poll && self.termios.cc(abi::VTIME) == 0 && min > 0 { min } else { 1 };
        self.committed >= wanted
    }

    /// Returns the bytes a read could return now (FIONREAD): in canonical
    /// mode those of complete lines, end-of-file marks not counted.
    pub fn readable_bytes(&self) -> usize {
        self.buf.iter().take(self.committed).filter(|&&e| e & EOF_MARK == 0).count()
    }

    /// Returns how a read of these settings waits: VMIN and VTIME in
    /// non-canonical mode (VTIME is in tenths of a second).
    pub fn read_policy(&self) -> ReadPolicy {
        if self.termios.canonical() {
            return ReadPolicy { minimum: 0, first_timeout_ns: None, inter_byte_timeout_ns: None };
        }
        let min = usize::from(self.termios.cc(abi::VMIN));
        let time_ns = u64::from(self.termios.cc(abi::VTIME)) * 100_000_000;
        if min > 0 {
            ReadPolicy {
                minimum: min,
                first_timeout_ns: None,
                inter_byte_timeout_ns: (time_ns > 0).then_some(time_ns),
            }
        } else {
            ReadPolicy { minimum: 1, first_timeout_ns: Some(time_ns), inter_byte_timeout_ns: None }
        }
    }

    /// Copies readable input into `out`: in canonical mode at most one
    /// line (its terminator included, an end-of-file mark consumed but not
    /// copied), otherwise as much as fits. Returns the byte count; 0 from
    /// a canonical read of an end-of-file mark means end of file.
    pub fn read(&mut self, out: &mut [u8]) -> usize {
        if self.termios.canonical() {
            let limit = out.len().min(self.committed);
            let mut copied = 0;
            let mut consumed = 0;
            while consumed < limit {
                let entry = self.buf[consumed];
                consumed += 1;
                if entry & EOF_MARK == 0 {
                    out[copied] = entry as u8;
                    copied += 1;
                }
                if entry & LINE_END != 0 {
                    break;
                }
            }
            self.buf.drain(..consumed);
            self.committed -= consumed;
            copied
        } else {
            let n = out.len().min(self.committed);
            for (slot, entry) in out.iter_mut().zip(self.buf.drain(..n)) {
                *slot = entry as u8;
            }
            self.committed -= n;
            n
        }
    }
}

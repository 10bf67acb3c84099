//! Terminal settings: `struct termios` and `struct winsize`.

use linux_raw_sys::general as abi;

/// Number of control characters in the kernel's `struct termios` (NCCS).
const NCCS: usize = abi::NCCS as usize;

/// A terminal's settings, as Linux's `struct termios` (the layout TCGETS
/// and TCSETS copy: four flag words, the line discipline number and 19
/// control characters, 36 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Termios {
    /// Input modes (ICRNL, IXON, ...).
    pub iflag: u32,
    /// Output modes (OPOST, ONLCR, ...).
    pub oflag: u32,
    /// Control modes (baud rate, CS8, CREAD, ...).
    pub cflag: u32,
    /// Local modes (ICANON, ECHO, ISIG, ...).
    pub lflag: u32,
    /// The line discipline number (0: N_TTY).
    pub line: u8,
    /// Control characters, indexed by VINTR, VQUIT, ...
    pub cc: [u8; NCCS],
}

/// Linux's INIT_C_CC: ^C, ^\, DEL, ^U, ^D, TIME 0, MIN 1, SWTC off, ^Q,
/// ^S, ^Z, EOL off, ^R, ^O, ^W, ^V, EOL2 off.
const INIT_CC: [u8; NCCS] = {
    let mut cc = [0u8; NCCS];
    cc[abi::VINTR as usize] = 0x03;
    cc[abi::VQUIT as usize] = 0x1c;
    cc[abi::VERASE as usize] = 0x7f;
    cc[abi::VKILL as usize] = 0x15;
    cc[abi::VEOF as usize] = 0x04;
    cc[abi::VTIME as usize] = 0;
    cc[abi::VMIN as usize] = 1;
    cc[abi::VSTART as usize] = 0x11;
    cc[abi::VSTOP as usize] = 0x13;
    cc[abi::VSUSP as usize] = 0x1a;
    cc[abi::VREPRINT as usize] = 0x12;
    cc[abi::VDISCARD as usize] = 0x0f;
    cc[abi::VWERASE as usize] = 0x17;
    cc[abi::VLNEXT as usize] = 0x16;
    cc
};

impl Termios {
    /// The size of the structure TCGETS and TCSETS copy.
    pub const SIZE: usize = 36;

    /// Linux's `tty_std_termios`: cooked mode with echo and signals,
    /// `\r` read as `\n`, `\n` written as `\r\n`, 38400 baud, 8 bits.
    pub const fn standard() -> Termios {
        Termios {
            iflag: abi::ICRNL | abi::IXON,
            oflag: abi::OPOST | abi::ONLCR,
            cflag: abi::B38400 | abi::CS8 | abi::CREAD | abi::HUPCL,
            lflag: abi::ISIG
                | abi::ICANON
                | abi::ECHO
                | abi::ECHOE
                | abi::ECHOK
                | abi::ECHOCTL
                | abi::ECHOKE
                | abi::IEXTEN,
            line: 0,
            cc: INIT_CC,
        }
    }

    /// The settings of a new pseudo-terminal slave: the standard ones
    /// without HUPCL (Linux's pts driver).
    pub const fn pty_slave() -> Termios {
        let mut t = Termios::standard();
        t.cflag = abi::B38400 | abi::CS8 | abi::CREAD;
        t
    }

    /// The settings of a serial console at 115200 baud: the standard ones,
    /// with CLOCAL (no modem lines to wait for).
    pub const fn serial_console() -> Termios {
        let mut t = Termios::standard();
        t.cflag = abi::B115200 | abi::CS8 | abi::CREAD | abi::HUPCL | abi::CLOCAL;
        t
    }

    /// Decodes the 36-byte `struct termios` of TCSETS.
    pub fn from_bytes(raw: &[u8; Termios::SIZE]) -> Termios {
        let word = |at: usize| u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]);
        let mut cc = [0u8; NCCS];
        cc.copy_from_slice(&raw[17..17 + NCCS]);
        Termios { iflag: word(0), oflag: word(4), cflag: word(8), lflag: word(12), line: raw[16], cc }
    }

    /// Encodes the settings as the 36-byte `struct termios` of TCGETS.
    pub fn to_bytes(&self) -> [u8; Termios::SIZE] {
        let mut raw = [0u8; Termios::SIZE];
        raw[0..4].copy_from_slice(&self.iflag.to_le_bytes());
        raw[4..8].copy_from_slice(&self.oflag.to_le_bytes());
        raw[8..12].copy_from_slice(&self.cflag.to_le_bytes());
        raw[12..16].copy_from_slice(&self.lflag.to_le_bytes());
        raw[16] = self.line;
        raw[17..17 + NCCS].copy_from_slice(&self.cc);
        raw
    }

    /// Returns control character `index` (VINTR, VMIN, ...).
    pub fn cc(&self, index: u32) -> u8 {
        self.cc[index as usize]
    }

    /// Returns whether all of the local-mode bits `bits` are set.
    pub fn local(&self, bits: u32) -> bool {
        self.lflag & bits == bits
    }

    /// Returns whether all of the input-mode bits `bits` are set.
    pub fn input(&self, bits: u32) -> bool {
        self.iflag & bits == bits
    }

    /// Returns whether all of the output-mode bits `bits` are set.
    pub fn output(&self, bits: u32) -> bool {
        self.oflag & bits == bits
    }

    /// Returns whether canonical (line-by-line) input is on.
    pub fn canonical(&self) -> bool {
        self.local(abi::ICANON)
    }

    /// Returns whether `c` is the special character at `index`: a control
    /// character of 0 is disabled (`_POSIX_VDISABLE` is `'\0'` on Linux).
    pub fn is_char(&self, index: u32, c: u8) -> bool {
        let special = self.cc(index);
        special != 0 && special == c
    }
}

impl Default for Termios {
    fn default() -> Self {
        Termios::standard()
    }
}

/// A terminal's size, as `struct winsize` (rows, columns, pixel width and
/// height; 8 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Winsize {
    /// ws_row.
    pub rows: u16,
    /// ws_col.
    pub cols: u16,
    /// ws_xpixel.
    pub xpixel: u16,
    /// ws_ypixel.
    pub ypixel: u16,
}

impl Winsize {
    /// The size of `struct winsize`.
    pub const SIZE: usize = core::mem::size_of::<abi::winsize>();

    /// Decodes a `struct winsize`.
    pub fn from_bytes(raw: &[u8; Winsize::SIZE]) -> Winsize {
        let half = |at: usize| u16::from_le_bytes([raw[at], raw[at + 1]]);
        Winsize { rows: half(0), cols: half(2), xpixel: half(4), ypixel: half(6) }
    }

    /// Encodes the size as a `struct winsize`.
    pub fn to_bytes(&self) -> [u8; Winsize::SIZE] {
        let mut raw = [0u8; Winsize::SIZE];
        raw[0..2].copy_from_slice(&self.rows.to_le_bytes());
        raw[2..4].copy_from_slice(&self.cols.to_le_bytes());
        raw[4..6].copy_from_slice(&self.xpixel.to_le_bytes());
        raw[6..8].copy_from_slice(&self.ypixel.to_le_bytes());
        raw
    }
}

// The layouts above must match the kernel's structures.
const _: () = assert!(core::mem::size_of::<abi::termios>() == Termios::SIZE);
const _: () = assert!(Winsize::SIZE == 8);

//! A line of numbers for /proc's text files, written without `core::fmt`:
//! `/proc/PID/stat` has 52 fields, and `ps` reads one per process, so the
//! formatting machinery (a dynamic call per argument, padding checks) was
//! a fifth of a process-table scan.

use alloc::vec::Vec;

/// A line under construction.
pub struct Line(pub Vec<u8>);

impl Line {
    /// An empty line with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Line {
        Line(Vec::with_capacity(capacity))
    }

    /// Appends `v` in decimal, as `{}` writes it.
    pub fn num(&mut self, v: i128) -> &mut Line {
        let mut digits = [0u8; 24];
        let mut i = digits.len();
        // Every field fits in 64 bits; the wide type only carries the sign.
        let mut m = v.unsigned_abs().min(u64::MAX as u128) as u64;
        loop {
            i -= 1;
            digits[i] = b'0' + (m % 10) as u8;
            m /= 10;
            if m == 0 {
                break;
            }
        }
        if v < 0 {
            i -= 1;
            digits[i] = b'-';
        }
        self.0.extend_from_slice(&digits[i..]);
        self
    }

    /// Appends bytes as they are.
    pub fn text(&mut self, s: &[u8]) -> &mut Line {
        self.0.extend_from_slice(s);
        self
    }
}

/// Appends each value in decimal followed by a space:
/// `nums!(line; a, b, c)`.
macro_rules! nums {
    ($line:expr; $($v:expr),* $(,)?) => {
        $( $line.num(($v) as i128).text(b" "); )*
    };
}
pub(crate) use nums;

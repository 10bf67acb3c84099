//! Linux error numbers as a typed value.

use core::fmt;
use linux_raw_sys::errno;

/// A Linux error number, as returned (negated) by a failing system call.
///
/// The value is always the positive errno; [`Errno::as_negative_isize`] gives
/// the form a system call returns to user space.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Errno(i32);

/// Result of a file-system operation.
pub type Result<T> = core::result::Result<T, Errno>;

/// Defines one associated constant per errno together with the table that
/// `name()` searches, so the two can never disagree.
macro_rules! errnos {
    ($($name:ident => $text:literal,)*) => {
        impl Errno {
            $(
                #[doc = concat!("`", stringify!($name), "`: ", $text, ".")]
                pub const $name: Errno = Errno(errno::$name as i32);
            )*

            /// Returns the symbolic name ("ENOENT", ...) for logs, or "E?"
            /// for a number this table does not know.
            pub fn name(self) -> &'static str {
                $(
                    if self == Errno::$name {
                        return stringify!($name);
                    }
                )*
                "E?"
            }

            /// Returns a short English description, as `strerror` would.
            pub fn description(self) -> &'static str {
                $(
                    if self == Errno::$name {
                        return $text;
                    }
                )*
                "Unknown error"
            }
        }
    };
}

errnos! {
    EPERM => "Operation not permitted",
    ENOENT => "No such file or directory",
    ESRCH => "No such process",
    EINTR => "Interrupted system call",
    EIO => "Input/output error",
    ENXIO => "No such device or address",
    E2BIG => "Argument list too long",
    EIDRM => "Identifier removed",
    ENOMSG => "No message of desired type",
    ENOEXEC => "Exec format error",
    EBADF => "Bad file descriptor",
    ECHILD => "No child processes",
    EAGAIN => "Resource temporarily unavailable",
    ENOMEM => "Cannot allocate memory",
    EACCES => "Permission denied",
    EFAULT => "Bad address",
    ENOTBLK => "Block device required",
    EBUSY => "Device or resource busy",
    EEXIST => "File exists",
    EXDEV => "Invalid cross-device link",
    ENODEV => "No such device",
    ENOTDIR => "Not a directory",
    EISDIR => "Is a directory",
    EINVAL => "Invalid argument",
    ENFILE => "Too many open files in system",
    EMFILE => "Too many open files",
    ENOTTY => "Inappropriate ioctl for device",
    ETXTBSY => "Text file busy",
    EFBIG => "File too large",
    ENOSPC => "No space left on device",
    ESPIPE => "Illegal seek",
    EROFS => "Read-only file system",
    EMLINK => "Too many links",
    EPIPE => "Broken pipe",
    EDOM => "Numerical argument out of domain",
    ERANGE => "Numerical result out of range",
    EDEADLK => "Resource deadlock avoided",
    ENAMETOOLONG => "File name too long",
    ENOLCK => "No locks available",
    ENOSYS => "Function not implemented",
    ENOTEMPTY => "Directory not empty",
    ELOOP => "Too many levels of symbolic links",
    ENODATA => "No data available",
    EOVERFLOW => "Value too large for defined data type",
    EILSEQ => "Invalid or incomplete multibyte or wide character",
    ENOTSOCK => "Socket operation on non-socket",
    EOPNOTSUPP => "Operation not supported",
    EADDRINUSE => "Address already in use",
    ECONNREFUSED => "Connection refused",
    ETIMEDOUT => "Connection timed out",
    EDQUOT => "Disk quota exceeded",
    ESTALE => "Stale file handle",
    ENOKEY => "Required key not available",
    EKEYEXPIRED => "Key has expired",
    EKEYREVOKED => "Key has been revoked",
    EKEYREJECTED => "Key was rejected by service",
    ECANCELED => "Operation canceled",
    EDESTADDRREQ => "Destination address required",
    EMSGSIZE => "Message too long",
    EPROTOTYPE => "Protocol wrong type for socket",
    ENOPROTOOPT => "Protocol not available",
    EPROTONOSUPPORT => "Protocol not supported",
    ESOCKTNOSUPPORT => "Socket type not supported",
    EPFNOSUPPORT => "Protocol family not supported",
    EAFNOSUPPORT => "Address family not supported by protocol",
    EADDRNOTAVAIL => "Cannot assign requested address",
    ENETDOWN => "Network is down",
    ENETUNREACH => "Network is unreachable",
    ECONNABORTED => "Software caused connection abort",
    ECONNRESET => "Connection reset by peer",
    ENOBUFS => "No buffer space available",
    EISCONN => "Transport endpoint is already connected",
    ENOTCONN => "Transport endpoint is not connected",
    ESHUTDOWN => "Cannot send after transport endpoint shutdown",
    ETOOMANYREFS => "Too many references: cannot splice",
    EHOSTUNREACH => "No route to host",
    EALREADY => "Operation already in progress",
    EINPROGRESS => "Operation now in progress",
    EBADMSG => "Bad message",
    EUCLEAN => "Structure needs cleaning",
    EBADR => "Invalid request descriptor",
}

impl Errno {
    /// `EWOULDBLOCK`: the same number as [`Errno::EAGAIN`] on Linux.
    pub const EWOULDBLOCK: Errno = Errno(errno::EWOULDBLOCK as i32);
    /// `ENOTSUP`: libc's alias of [`Errno::EOPNOTSUPP`] (the kernel headers
    /// name only the latter).
    pub const ENOTSUP: Errno = Errno::EOPNOTSUPP;

    /// Wraps a raw positive errno value (for numbers without a constant here).
    pub const fn new(code: i32) -> Errno {
        Errno(code)
    }

    /// Returns the positive errno value.
    pub const fn code(self) -> i32 {
        self.0
    }

    /// Returns the value a failing system call hands back to user space.
    pub const fn as_negative_isize(self) -> isize {
        -(self.0 as isize)
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name(), self.description())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_linux() {
        // Spot checks against the numbers every Linux libc agrees on.
        assert_eq!(Errno::EPERM.code(), 1);
        assert_eq!(Errno::ENOENT.code(), 2);
        assert_eq!(Errno::EEXIST.code(), 17);
        assert_eq!(Errno::ENOTDIR.code(), 20);
        assert_eq!(Errno::EISDIR.code(), 21);
        assert_eq!(Errno::ENAMETOOLONG.code(), 36);
        assert_eq!(Errno::ENOSYS.code(), 38);
        assert_eq!(Errno::ENOTEMPTY.code(), 39);
        assert_eq!(Errno::ELOOP.code(), 40);
        assert_eq!(Errno::EWOULDBLOCK, Errno::EAGAIN);
        assert_eq!(Errno::ENOTSUP.code(), 95);
        assert_eq!(Errno::EAFNOSUPPORT.code(), 97);
        assert_eq!(Errno::ENOTCONN.code(), 107);
        assert_eq!(Errno::ECONNREFUSED.code(), 111);
    }

    #[test]
    fn negative_form() {
        assert_eq!(Errno::ENOENT.as_negative_isize(), -2);
        assert_eq!(Errno::EBADF.as_negative_isize(), -9);
    }

    #[test]
    fn names_and_formatting() {
        assert_eq!(Errno::ENOENT.name(), "ENOENT");
        assert_eq!(Errno::ESPIPE.name(), "ESPIPE");
        assert_eq!(Errno::new(4000).name(), "E?");
        assert_eq!(Errno::EWOULDBLOCK.name(), "EAGAIN");
        assert_eq!(format!("{:?}", Errno::EEXIST), "EEXIST(17)");
        assert_eq!(
            format!("{}", Errno::ENOENT),
            "ENOENT: No such file or directory"
        );
        assert_eq!(Errno::new(4000).description(), "Unknown error");
    }

    #[test]
    fn names_are_distinct() {
        let all = [
            Errno::EPERM,
            Errno::ENOENT,
            Errno::EACCES,
            Errno::EBUSY,
            Errno::EXDEV,
            Errno::EROFS,
            Errno::EMLINK,
            Errno::EFAULT,
            Errno::EFBIG,
            Errno::ENOSPC,
            Errno::EINVAL,
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.name(), b.name());
                assert_ne!(a, b);
            }
        }
    }
}

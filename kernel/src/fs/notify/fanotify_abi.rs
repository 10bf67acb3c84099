//! The fanotify ABI (include/uapi/linux/fanotify.h of Linux 6.1; not in
//! linux-raw-sys 0.12), and the groupings Linux's fanotify code checks
//! masks and flags against (include/linux/fanotify.h).

// fanotify_init flags.
pub const FAN_CLOEXEC: u32 = 0x0000_0001;
pub const FAN_NONBLOCK: u32 = 0x0000_0002;
pub const FAN_CLASS_NOTIF: u32 = 0x0000_0000;
pub const FAN_CLASS_CONTENT: u32 = 0x0000_0004;
pub const FAN_CLASS_PRE_CONTENT: u32 = 0x0000_0008;
pub const FAN_UNLIMITED_QUEUE: u32 = 0x0000_0010;
pub const FAN_UNLIMITED_MARKS: u32 = 0x0000_0020;
pub const FAN_ENABLE_AUDIT: u32 = 0x0000_0040;
pub const FAN_REPORT_PIDFD: u32 = 0x0000_0080;
pub const FAN_REPORT_TID: u32 = 0x0000_0100;
pub const FAN_REPORT_FID: u32 = 0x0000_0200;
pub const FAN_REPORT_DIR_FID: u32 = 0x0000_0400;
pub const FAN_REPORT_NAME: u32 = 0x0000_0800;
pub const FAN_REPORT_TARGET_FID: u32 = 0x0000_1000;

pub const CLASS_BITS: u32 = FAN_CLASS_CONTENT | FAN_CLASS_PRE_CONTENT;
pub const FID_BITS: u32 = FAN_REPORT_FID | FAN_REPORT_DIR_FID | FAN_REPORT_NAME | FAN_REPORT_TARGET_FID;
/// What only CAP_SYS_ADMIN may ask for.
pub const ADMIN_INIT_FLAGS: u32 = CLASS_BITS | FAN_REPORT_TID | FAN_REPORT_PIDFD | FAN_UNLIMITED_QUEUE | FAN_UNLIMITED_MARKS;
/// What an unprivileged user may ask for.
pub const USER_INIT_FLAGS: u32 = FAN_CLASS_NOTIF | FID_BITS | FAN_CLOEXEC | FAN_NONBLOCK;
/// Every flag fanotify_init knows (FAN_ENABLE_AUDIT too: Debian's
/// kernel has CONFIG_AUDITSYSCALL).
pub const INIT_FLAGS: u32 = ADMIN_INIT_FLAGS | USER_INIT_FLAGS | FAN_ENABLE_AUDIT;

// fanotify_mark flags.
pub const FAN_MARK_ADD: u32 = 0x0000_0001;
pub const FAN_MARK_REMOVE: u32 = 0x0000_0002;
pub const FAN_MARK_DONT_FOLLOW: u32 = 0x0000_0004;
pub const FAN_MARK_ONLYDIR: u32 = 0x0000_0008;
pub const FAN_MARK_MOUNT: u32 = 0x0000_0010;
pub const FAN_MARK_IGNORED_MASK: u32 = 0x0000_0020;
pub const FAN_MARK_IGNORED_SURV_MODIFY: u32 = 0x0000_0040;
pub const FAN_MARK_FLUSH: u32 = 0x0000_0080;
pub const FAN_MARK_FILESYSTEM: u32 = 0x0000_0100;
pub const FAN_MARK_EVICTABLE: u32 = 0x0000_0200;
pub const FAN_MARK_IGNORE: u32 = 0x0000_0400;
pub const FAN_MARK_INODE: u32 = 0x0000_0000;

pub const MARK_TYPE_BITS: u32 = FAN_MARK_INODE | FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM;
pub const MARK_CMD_BITS: u32 = FAN_MARK_ADD | FAN_MARK_REMOVE | FAN_MARK_FLUSH;
pub const MARK_IGNORE_BITS: u32 = FAN_MARK_IGNORED_MASK | FAN_MARK_IGNORE;
pub const MARK_FLAGS: u32 = MARK_TYPE_BITS
    | MARK_CMD_BITS
    | MARK_IGNORE_BITS
    | FAN_MARK_DONT_FOLLOW
    | FAN_MARK_ONLYDIR
    | FAN_MARK_IGNORED_SURV_MODIFY
    | FAN_MARK_EVICTABLE;

// Events.
pub const FAN_ACCESS: u32 = 0x0000_0001;
pub const FAN_MODIFY: u32 = 0x0000_0002;
pub const FAN_ATTRIB: u32 = 0x0000_0004;
pub const FAN_CLOSE_WRITE: u32 = 0x0000_0008;
pub const FAN_CLOSE_NOWRITE: u32 = 0x0000_0010;
pub const FAN_OPEN: u32 = 0x0000_0020;
pub const FAN_MOVED_FROM: u32 = 0x0000_0040;
pub const FAN_MOVED_TO: u32 = 0x0000_0080;
pub const FAN_CREATE: u32 = 0x0000_0100;
pub const FAN_DELETE: u32 = 0x0000_0200;
pub const FAN_DELETE_SELF: u32 = 0x0000_0400;
pub const FAN_MOVE_SELF: u32 = 0x0000_0800;
pub const FAN_OPEN_EXEC: u32 = 0x0000_1000;
pub const FAN_Q_OVERFLOW: u32 = 0x0000_4000;
pub const FAN_FS_ERROR: u32 = 0x0000_8000;
pub const FAN_OPEN_PERM: u32 = 0x0001_0000;
pub const FAN_ACCESS_PERM: u32 = 0x0002_0000;
pub const FAN_OPEN_EXEC_PERM: u32 = 0x0004_0000;
pub const FAN_EVENT_ON_CHILD: u32 = 0x0800_0000;
pub const FAN_RENAME: u32 = 0x1000_0000;
pub const FAN_ONDIR: u32 = 0x4000_0000;

pub const PATH_EVENTS: u32 = FAN_ACCESS | FAN_MODIFY | FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE | FAN_OPEN | FAN_OPEN_EXEC;
pub const DIRENT_EVENTS: u32 = FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CREATE | FAN_DELETE | FAN_RENAME;
pub const INODE_EVENTS: u32 = DIRENT_EVENTS | FAN_ATTRIB | FAN_MOVE_SELF | FAN_DELETE_SELF;
pub const PERM_EVENTS: u32 = FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN_EXEC_PERM;
pub const EVENTS: u32 = PATH_EVENTS | INODE_EVENTS | FAN_FS_ERROR;
pub const FD_EVENTS: u32 = PATH_EVENTS | PERM_EVENTS;
pub const EVENT_FLAGS: u32 = FAN_EVENT_ON_CHILD | FAN_ONDIR;
pub const DIRONLY_EVENT_BITS: u32 = DIRENT_EVENTS | EVENT_FLAGS;
/// What a read reports of an event's mask.
pub const OUTGOING_EVENTS: u32 = EVENTS | PERM_EVENTS | FAN_Q_OVERFLOW | FAN_ONDIR;

// Responses to permission events.
pub const FAN_ALLOW: u32 = 0x01;
pub const FAN_DENY: u32 = 0x02;
pub const FAN_AUDIT: u32 = 0x10;

/// `struct fanotify_event_metadata`'s version.
pub const FANOTIFY_METADATA_VERSION: u8 = 3;
/// `sizeof(struct fanotify_event_metadata)`.
pub const FAN_EVENT_METADATA_LEN: usize = 24;
/// `sizeof(struct fanotify_response)`.
pub const FAN_RESPONSE_LEN: usize = 8;
/// The fd of an event without one.
pub const FAN_NOFD: i32 = -1;

//! The System V IPC constants of Linux's uapi headers (linux/ipc.h,
//! linux/msg.h, linux/sem.h, linux/shm.h). linux-raw-sys does not carry
//! them, so they are written here once, with the header they come from.

// linux/ipc.h
pub const IPC_PRIVATE: i32 = 0;
pub const IPC_CREAT: u32 = 0o1000;
pub const IPC_EXCL: u32 = 0o2000;
pub const IPC_NOWAIT: u32 = 0o4000;
pub const IPC_RMID: i32 = 0;
pub const IPC_SET: i32 = 1;
pub const IPC_STAT: i32 = 2;
pub const IPC_INFO: i32 = 3;

// linux/msg.h
pub const MSG_STAT: i32 = 11;
pub const MSG_INFO: i32 = 12;
pub const MSG_STAT_ANY: i32 = 13;
pub const MSG_NOERROR: u32 = 0o10000;
pub const MSG_EXCEPT: u32 = 0o20000;
pub const MSG_COPY: u32 = 0o40000;
/// MSGMNI, MSGMAX, MSGMNB: the defaults of the limits.
pub const MSGMNI: u32 = 32000;
pub const MSGMAX: u32 = 8192;
pub const MSGMNB: u32 = 16384;
/// MSGSSZ and MSGSEG, reported by IPC_INFO.
pub const MSGSSZ: i32 = 16;
pub const MSGSEG: u16 = 0xffff;

// linux/sem.h
pub const SEM_UNDO: u16 = 0x1000;
pub const GETPID: i32 = 11;
pub const GETVAL: i32 = 12;
pub const GETALL: i32 = 13;
pub const GETNCNT: i32 = 14;
pub const GETZCNT: i32 = 15;
pub const SETVAL: i32 = 16;
pub const SETALL: i32 = 17;
pub const SEM_STAT: i32 = 18;
pub const SEM_INFO: i32 = 19;
pub const SEM_STAT_ANY: i32 = 20;
pub const SEMMNI: u32 = 32000;
pub const SEMMSL: u32 = 32000;
pub const SEMMNS: u32 = SEMMNI * SEMMSL;
pub const SEMOPM: u32 = 500;
pub const SEMVMX: i32 = 32767;
pub const SEMAEM: i32 = SEMVMX;
pub const SEMMAP: i32 = SEMMNS as i32;
pub const SEMUME: i32 = SEMOPM as i32;
pub const SEMMNU: i32 = SEMMNS as i32;
pub const SEMUSZ: i32 = 20;

// linux/shm.h
pub const SHM_RDONLY: u32 = 0o10000;
pub const SHM_RND: u32 = 0o20000;
pub const SHM_REMAP: u32 = 0o40000;
pub const SHM_EXEC: u32 = 0o100000;
pub const SHM_LOCK: i32 = 11;
pub const SHM_UNLOCK: i32 = 12;
pub const SHM_STAT: i32 = 13;
pub const SHM_INFO: i32 = 14;
pub const SHM_STAT_ANY: i32 = 15;
/// Mode bits the kernel keeps in shm_perm.mode.
pub const SHM_DEST: u32 = 0o1000;
pub const SHM_LOCKED: u32 = 0o2000;
pub const SHM_HUGETLB: u32 = 0o4000;
pub const SHMMIN: u64 = 1;
pub const SHMMNI: u32 = 4096;
pub const SHMMAX: u64 = u64::MAX - (1 << 24);
pub const SHMALL: u64 = u64::MAX - (1 << 24);
pub const SHMLBA: usize = 4096;


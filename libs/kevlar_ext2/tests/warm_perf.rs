//! The cost of the page cache's warm paths on the host: 4 KiB writes and
//! reads of a cached file, and creating many small files (what fio's warm
//! rows and untar do in the benchmark suite). Ignored by default (it
//! measures, it does not check); run with
//! `cargo test -p kevlar_ext2 --release --test warm_perf -- --ignored --nocapture`
//! and profile the binary with `perf record` to see where the time goes.

mod common;

use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use common::*;
use kevlar_ext2::{Ext2Fs, Flavour, MountOptions};
use kevlar_vfs::{BlockDevice, Clock, FileType, Timespec};

const EXT4: MountOptions = MountOptions { dev: 90, read_only: false, flavour: Flavour::Ext4 };

/// A clock that moves 1 us on every reading and shows the start of its
/// 4 ms tick, as the kernel's coarse clock for file timestamps.
struct Ticking(std::sync::Mutex<Timespec>);

impl Clock for Ticking {
    fn now(&self) -> Timespec {
        let mut t = self.0.lock().unwrap();
        t.nsec += 1000;
        if t.nsec >= 1_000_000_000 {
            t.nsec -= 1_000_000_000;
            t.sec += 1;
        }
        Timespec::new(t.sec, t.nsec - t.nsec % 4_000_000)
    }
}

fn fresh_ext4(scratch: &Scratch, size_mib: u64) -> Arc<Ext2Fs> {
    let image = scratch.0.join("perf.img");
    std::fs::File::create(&image).unwrap().set_len(size_mib << 20).unwrap();
    let out = Command::new(tool("mke2fs")).args(["-q", "-F", "-t", "ext4", "-b", "4096", "-E", "root_owner=0:0"]).arg(&image).output().unwrap();
    assert!(out.status.success(), "mke2fs failed: {}", String::from_utf8_lossy(&out.stderr));
    let dev: Arc<dyn BlockDevice> = disk_of(&image);
    let clock: Arc<dyn Clock> = Arc::new(Ticking(std::sync::Mutex::new(Timespec::new(1_700_000_000, 0))));
    Ext2Fs::mount_with_pages(dev, clock, EXT4, Arc::new(kevlar_vfs::HeapPages), 1 << 20).unwrap()
}

#[test]
#[ignore]
fn warm_4k_pwrite_pread() {
    let scratch = Scratch::new("warm");
    let fs = fresh_ext4(&scratch, 256);
    let root = fs.root();
    let f = root.create(b"fio.dat", FileType::Regular, 0o644, 0, 0, 0).unwrap();
    let pages = 16384u64; // 64 MiB
    let block = vec![0x5au8; 4096];
    for i in 0..pages {
        f.write_at(i * 4096, &block).unwrap();
    }
    fs.sync().unwrap();
    let mut flags = 0;
    println!("extents: {}", f.fiemap(0, u64::MAX, &mut flags).unwrap().len());
    let rounds = std::env::var("WARM_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(4u64);
    let (w, r) = warm_loops(&f, pages, rounds);
    println!("warm 4 KiB write: {:.0} ns, read: {:.0} ns", w, r);
}

/// The timed part (a function of its own, for `valgrind --tool=callgrind
/// --toggle-collect=*warm_loops*`): ns a write, ns a read.
#[inline(never)]
fn warm_loops(f: &Arc<dyn kevlar_vfs::Inode>, pages: u64, rounds: u64) -> (f64, f64) {
    let block = vec![0x5au8; 4096];
    let t = Instant::now();
    for _ in 0..rounds {
        for i in 0..pages {
            f.write_at(((i * 7919) % pages) * 4096, &block).unwrap();
        }
    }
    let w = t.elapsed().as_nanos() as f64 / (rounds * pages) as f64;
    let mut buf = vec![0u8; 4096];
    let t = Instant::now();
    for _ in 0..rounds {
        for i in 0..pages {
            f.read_at(((i * 7919) % pages) * 4096, &mut buf).unwrap();
        }
    }
    let r = t.elapsed().as_nanos() as f64 / (rounds * pages) as f64;
    (w, r)
}

#[test]
#[ignore]
fn create_write_close_small_files() {
    let scratch = Scratch::new("untar");
    let fs = fresh_ext4(&scratch, 256);
    let root = fs.root();
    let data = vec![0x33u8; 6000];
    let dirs = 40;
    let per = 100;
    let t = Instant::now();
    for d in 0..dirs {
        let dir = root.create(format!("d{}", d).as_bytes(), FileType::Directory, 0o755, 0, 0, 0).unwrap();
        for i in 0..per {
            let f = dir.create(format!("file-{}.c", i).as_bytes(), FileType::Regular, 0o644, 0, 0, 0).unwrap();
            f.write_at(0, &data).unwrap();
            f.set_attr(&kevlar_vfs::SetAttr { mtime: Some(Timespec::new(1_600_000_000, 0)), ..Default::default() }).unwrap();
        }
    }
    let n = (dirs * per) as f64;
    let c = t.elapsed().as_nanos() as f64 / n;
    let t = Instant::now();
    fs.sync().unwrap();
    println!("create+write+utime: {:.0} ns a file, sync {:.1} ms", c, t.elapsed().as_secs_f64() * 1e3);
}

/// A path walk on a root like Debian's: lookups of existing and absent
/// names in `/usr/bin` (2,000 entries) and `/usr/lib/x86_64-linux-gnu`
/// (3,000), each directory of the path looked up and the file stat'ed,
/// as `execvp`'s search along PATH and the dynamic loader's along its
/// library path do. Hashed-tree directories (`e2fsck -D`), as mke2fs
/// makes big ones. Uses the public API only, so the same file measures
/// the crate before and after a change.
#[test]
#[ignore]
fn path_walk_in_big_directories() {
    let scratch = Scratch::new("pathwalk");
    let src = scratch.0.join("src");
    for (dir, n) in [("usr/bin", 2000), ("usr/lib/x86_64-linux-gnu", 3000), ("usr/local/bin", 3)] {
        std::fs::create_dir_all(src.join(dir)).unwrap();
        for i in 0..n {
            std::fs::write(src.join(format!("{}/prog-{:05}", dir, i)), b"#").unwrap();
        }
    }
    let image = scratch.0.join("walk.img");
    std::fs::File::create(&image).unwrap().set_len(64 << 20).unwrap();
    let out = Command::new(tool("mke2fs")).args(["-q", "-F", "-t", "ext4", "-b", "4096", "-E", "root_owner=0:0", "-d"]).arg(&src).arg(&image).output().unwrap();
    assert!(out.status.success(), "mke2fs failed: {}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(tool("e2fsck")).args(["-fyD"]).arg(&image).output().unwrap();
    assert!(out.status.code().unwrap_or(8) < 4);
    let dev: Arc<dyn BlockDevice> = disk_of(&image);
    let clock: Arc<dyn Clock> = Arc::new(Ticking(std::sync::Mutex::new(Timespec::new(1_700_000_000, 0))));
    let fs = Ext2Fs::mount_with_pages(dev, clock, EXT4, Arc::new(kevlar_vfs::HeapPages), 1 << 20).unwrap();
    let root = fs.root();
    let rounds = std::env::var("WALK_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(20usize);
    let (found, absent) = walk_loops(&root, rounds);
    println!("path walk + stat (CPU time), found: {:.0} ns; a search (misses in /usr/local/bin and /usr/lib/x86_64-linux-gnu, hit in /usr/bin): {:.0} ns", found, absent);
}

/// This thread's time on a CPU in ns (the host is shared: wall time
/// would count the other programs' turns).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok().and_then(|s| s.split_whitespace().next()?.parse().ok()).unwrap_or(0)
}

#[inline(never)]
fn walk_loops(root: &Arc<dyn kevlar_vfs::Inode>, rounds: usize) -> (f64, f64) {
    let lookup = |path: &str| -> Result<Arc<dyn kevlar_vfs::Inode>, kevlar_vfs::Errno> {
        let mut node = root.clone();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            node = node.lookup(part.as_bytes())?;
        }
        Ok(node)
    };
    let paths: Vec<String> = (0..200).map(|i| if i % 2 == 0 { format!("usr/bin/prog-{:05}", i * 9) } else { format!("usr/lib/x86_64-linux-gnu/prog-{:05}", i * 13) }).collect();
    // Warm: everything read once.
    for p in &paths {
        lookup(p).unwrap().stat().unwrap();
    }
    let t = cpu_ns();
    for _ in 0..rounds {
        for p in &paths {
            lookup(p).unwrap().stat().unwrap();
        }
    }
    let found = (cpu_ns() - t) as f64 / (rounds * paths.len()) as f64;
    let t = cpu_ns();
    for _ in 0..rounds {
        for i in 0..200 {
            assert!(lookup(&format!("usr/local/bin/prog-{:05}", i * 9 + 5)).is_err());
            assert!(lookup(&format!("usr/lib/x86_64-linux-gnu/absent-{:05}", i)).is_err());
            lookup(&format!("usr/bin/prog-{:05}", i * 9)).unwrap();
        }
    }
    let absent = (cpu_ns() - t) as f64 / (rounds * 200) as f64;
    (found, absent)
}

//! /proc/sys/kernel/random: the boot's id (systemd names its private
//! temporary directories and the journal's boot by it), a fresh UUID at
//! every read, and the entropy figures Linux 6.1 reports once its
//! generator is ready.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::{FileType, Inode};

use super::{fs_id, text_file};
use crate::fs::synth::{Attr, Parent, SynthDir, Table};

/// The boot's id, made at its first read.
static BOOT_ID: SpinLock<Option<[u8; 16]>> = SpinLock::new(None);

/// Formats 16 random bytes as Linux's random UUID (version 4, variant 1).
fn uuid_text(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let b = bytes;
    format!(
        "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}\n",
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
    )
}

fn random_uuid() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    crate::fs::devices::fill_random(&mut bytes);
    bytes
}

fn boot_id() -> String {
    let bytes = *BOOT_ID.lock().get_or_insert_with(random_uuid);
    uuid_text(bytes)
}

/// /proc/sys/kernel/random, with inode number `ino` and its files the
/// next ones.
pub(super) fn random_dir(ino: u64, parent: &Arc<dyn Inode>) -> Arc<dyn Inode> {
    let mut table = Table::new();
    table.add(b"boot_id", FileType::Regular, ino + 1, move |_| Ok(text_file(ino + 1, || Ok(boot_id()))));
    // Linux 6.1's pool is always full once the generator is seeded.
    table.add(b"entropy_avail", FileType::Regular, ino + 2, move |_| Ok(text_file(ino + 2, || Ok(String::from("256\n")))));
    table.add(b"poolsize", FileType::Regular, ino + 3, move |_| Ok(text_file(ino + 3, || Ok(String::from("256\n")))));
    table.add(b"uuid", FileType::Regular, ino + 4, move |_| Ok(text_file(ino + 4, || Ok(uuid_text(random_uuid())))));
    SynthDir::new(Attr::root(fs_id(), ino, 0o555), Parent::Strong(parent.clone()), Box::new(table))
}

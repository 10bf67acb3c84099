//! sysfs (`mount -t sysfs sysfs /sys`): the kernel's devices as a
//! read-only tree, laid out as Linux lays it out for the devices Kevlar
//! has, so that `mdev -s` finds them through /sys/dev/char and
//! /sys/class, and `df` sees a sysfs mount.
//!
//! The tree is made once: each device is a directory under
//! /sys/devices/virtual/CLASS/NAME with its `dev` and `uevent` files, and
//! /sys/class/CLASS/NAME and /sys/dev/char/MAJOR:MINOR link to it.

use alloc::boxed::Box;
use alloc::format;
use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_platform::sync::SpinLock;
use kevlar_vfs::Inode;

use super::devices::char_devices;
use super::synth::{Attr, FixedDir, Polling, SynthFile, SynthLink};

static ROOT: SpinLock<Option<Arc<dyn Inode>>> = SpinLock::new(None);

/// Returns sysfs's root directory (one tree, whichever mount shows it).
pub fn root() -> Arc<dyn Inode> {
    ROOT.lock().get_or_insert_with(build).clone()
}

/// Hands out inode numbers in build order.
struct Builder {
    fs_id: u64,
    next_ino: u64,
}

impl Builder {
    fn attr(&mut self, perm: u32) -> Attr {
        self.next_ino += 1;
        Attr::root(self.fs_id, self.next_ino, perm)
    }

    fn dir(&mut self, parent: &FixedDir, name: &str) -> FixedDir {
        let dir = FixedDir::new(self.attr(0o755), Some(parent));
        parent.add(name.as_bytes(), dir.node());
        dir
    }

    fn link(&mut self, parent: &FixedDir, name: &str, target: alloc::string::String) {
        let target = target.into_bytes();
        parent.add(name.as_bytes(), SynthLink::new(self.attr(0o777), Box::new(move || Ok(target.clone()))));
    }

    /// A read-only attribute file holding `text` (sysfs reports a page as
    /// the size of every attribute).
    fn file(&mut self, parent: &FixedDir, name: &str, text: alloc::string::String) {
        let text = text.into_bytes();
        let file = SynthFile::new(self.attr(0o444), Box::new(move || Ok(text.clone()))).with_size(4096).with_polling(Polling::Kernfs);
        parent.add(name.as_bytes(), file);
    }
}

fn parent_add(parent: &FixedDir, name: &str, node: Arc<dyn Inode>) {
    parent.add(name.as_bytes(), node);
}

/// A device's `uevent` file: reading gives `env` (its KEY=VALUE lines);
/// writing an action (`add`, `change`, `remove`...) broadcasts that event
/// for the device at `devpath` of `subsystem` on NETLINK_KOBJECT_UEVENT.
pub fn uevent_file(attr: Attr, devpath: alloc::string::String, subsystem: &'static str, env: alloc::string::String) -> Arc<dyn Inode> {
    let shown = env.clone().into_bytes();
    SynthFile::writable(attr, Box::new(move || Ok(shown.clone())), Box::new(move |data| crate::net::netlink::uevent::synthesize(data, &devpath, subsystem, &env))).with_size(4096).with_polling(Polling::Kernfs)
}

fn build() -> Arc<dyn Inode> {
    let mut b = Builder { fs_id: super::mount::anon_dev(), next_ino: 0 };
    let root = FixedDir::new(b.attr(0o555), None);
    for name in ["bus", "firmware", "module", "power"] {
        b.dir(&root, name);
    }
    // /sys/fs/cgroup: where the cgroup2 hierarchy is mounted.
    let fs = b.dir(&root, "fs");
    b.dir(&fs, "cgroup");
    let class = b.dir(&root, "class");
    let dev = b.dir(&root, "dev");
    let dev_char = b.dir(&dev, "char");
    let devices = b.dir(&root, "devices");
    let virtual_devices = b.dir(&devices, "virtual");
    let fs_id = b.fs_id;
    crate::block::sysfs::build(fs_id, &mut || b.attr(0o755).ino, &root, &class, &dev, &devices);
    let kernel = b.dir(&root, "kernel");
    // The number of the last uevent (only synthetic ones are sent: see
    // net/netlink/uevent.rs); no helper is run for them.
    let seqnum = SynthFile::new(b.attr(0o444), Box::new(|| Ok(format!("{}\n", crate::net::netlink::uevent::seqnum()).into_bytes()))).with_size(4096).with_polling(Polling::Kernfs);
    kernel.add(b"uevent_seqnum", seqnum);
    b.file(&kernel, "uevent_helper", format!("\n"));
    // Where debugfs and tracefs are mounted (sysfs_create_mount_point).
    b.dir(&kernel, "debug");
    b.dir(&kernel, "tracing");
    // The huge page pool of the one huge page size: none reserved, and
    // none can be (the counts are read-only here).
    let mm = b.dir(&kernel, "mm");
    let hugepages = b.dir(&mm, "hugepages");
    let pool = b.dir(&hugepages, "hugepages-2048kB");
    for name in ["free_hugepages", "nr_hugepages", "nr_hugepages_mempolicy", "nr_overcommit_hugepages", "resv_hugepages", "surplus_hugepages"] {
        b.file(&pool, name, format!("0\n"));
    }

    let mut classes: Vec<(&str, FixedDir, FixedDir)> = Vec::new();
    for device in char_devices() {
        if !classes.iter().any(|(name, _, _)| *name == device.class) {
            let class_dir = b.dir(&class, device.class);
            let virtual_dir = b.dir(&virtual_devices, device.class);
            classes.push((device.class, class_dir, virtual_dir));
        }
        let (_, class_dir, virtual_dir) = classes.iter().find(|(name, _, _)| *name == device.class).expect("class made above");
        let node = b.dir(virtual_dir, device.name);
        b.file(&node, "dev", format!("{}:{}\n", device.major, device.minor));
        let mode = if device.mode != 0o600 { format!("DEVMODE={:04o}\n", device.mode) } else { format!("") };
        let env = format!("MAJOR={}\nMINOR={}\nDEVNAME={}\n{}", device.major, device.minor, device.name, mode);
        let devpath = format!("/devices/virtual/{}/{}", device.class, device.name);
        parent_add(&node, "uevent", uevent_file(b.attr(0o644), devpath, device.class, env));
        if device.class == "tty" && device.name == "console" {
            // The consoles the kernel writes to (Linux: those of console=);
            // Kevlar's is the serial port. systemd's getty generator
            // starts serial-getty@ on what it lists.
            b.file(&node, "active", format!("ttyS0\n"));
        }
        if device.class == "tty" && device.name == "tty0" {
            // The foreground virtual console (logind reads it to learn
            // which console is active).
            let active = SynthFile::new(b.attr(0o444), Box::new(|| Ok(crate::tty::vt::active_name().into_bytes()))).with_size(4096).with_polling(Polling::Kernfs);
            node.add(b"active", active);
        }
        b.link(&node, "subsystem", format!("../../../../class/{}", device.class));
        b.link(class_dir, device.name, format!("../../devices/virtual/{}/{}", device.class, device.name));
        b.link(&dev_char, &format!("{}:{}", device.major, device.minor), format!("../../devices/virtual/{}/{}", device.class, device.name));
    }
    // The network interfaces (net/sysfs.rs).
    crate::net::sysfs::build(fs_id, &mut || b.attr(0o755).ino, &class, &devices, &virtual_devices);
    root.node()
}

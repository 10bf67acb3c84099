//! The path walker of kevlar_vfs, exercised on tmpfs trees.

mod common;

use std::sync::Arc;

use common::*;
use kevlar_tmpfs::TmpFs;
use kevlar_vfs::{
    same_inode, walk, walk_open, walk_parent, Credentials, Errno, FileType, Inode, LastComponent,
    MountTable, NoMounts, OpenLookup, ParentLookup, Result, WalkContext, WalkFlags,
    MAX_SYMLINK_FOLLOWS,
};

/// A mount table as a list of (covered directory, mounted root) pairs.
#[derive(Default)]
struct Mounts {
    list: Vec<(Arc<dyn Inode>, Arc<dyn Inode>)>,
}

impl Mounts {
    fn mount(&mut self, on: &Arc<dyn Inode>, root: &Arc<dyn Inode>) {
        self.list.push((on.clone(), root.clone()));
    }
}

impl MountTable for Mounts {
    fn mounted_at(&self, dir: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>> {
        self.list
            .iter()
            .find(|(on, _)| same_inode(&**on, &**dir))
            .map(|(_, root)| root.clone())
    }

    fn mount_parent(&self, root: &Arc<dyn Inode>) -> Option<Arc<dyn Inode>> {
        self.list
            .iter()
            .find(|(_, r)| same_inode(&**r, &**root))
            .map(|(on, _)| on.clone())
    }
}

/// A tree used by most tests:
///
/// ```text
/// /a/b/c          regular file
/// /a/b/up   ->    ../x       (relative, resolves to /a/x)
/// /a/x            regular file
/// /a/rel    ->    b/c
/// /abs      ->    /a/b
/// /file           regular file
/// /dangling ->    a/b/newfile
/// ```
struct Tree {
    f: Fixture,
    a: Arc<dyn Inode>,
    b: Arc<dyn Inode>,
    c: Arc<dyn Inode>,
    x: Arc<dyn Inode>,
}

fn tree() -> Tree {
    let f = fixture();
    let a = mkdir(&f.root, "a");
    let b = mkdir(&a, "b");
    let c = mkfile(&b, "c");
    let x = mkfile(&a, "x");
    b.symlink(b"up", b"../x", 0, 0).unwrap();
    a.symlink(b"rel", b"b/c", 0, 0).unwrap();
    f.root.symlink(b"abs", b"/a/b", 0, 0).unwrap();
    mkfile(&f.root, "file");
    f.root.symlink(b"dangling", b"a/b/newfile", 0, 0).unwrap();
    Tree { f, a, b, c, x }
}

fn ctx<'a>(
    root: &'a Arc<dyn Inode>,
    cwd: &'a Arc<dyn Inode>,
    mounts: &'a dyn MountTable,
) -> WalkContext<'a> {
    WalkContext {
        root,
        cwd,
        root_mnt: kevlar_vfs::NO_MOUNT,
        cwd_mnt: kevlar_vfs::NO_MOUNT,
        mounts,
        cred: None,
    }
}

/// Resolves `path` from `cwd` with no mounts and returns the inode number.
fn ino_at(
    root: &Arc<dyn Inode>,
    cwd: &Arc<dyn Inode>,
    path: &str,
    flags: WalkFlags,
) -> Result<u64> {
    walk(&ctx(root, cwd, &NoMounts), None, path.as_bytes(), flags).map(|n| n.ino())
}

fn ino(t: &Tree, path: &str) -> Result<u64> {
    ino_at(&t.f.root, &t.f.root, path, WalkFlags::EMPTY)
}

#[test]
fn absolute_and_relative_paths() {
    let t = tree();
    assert_eq!(ino(&t, "/a/b/c"), Ok(t.c.ino()));
    assert_eq!(ino(&t, "a/b/c"), Ok(t.c.ino()));
    assert_eq!(ino(&t, "/"), Ok(t.f.root.ino()));
    assert_eq!(ino(&t, "///a//b///c"), Ok(t.c.ino()));
    assert_eq!(
        ino_at(&t.f.root, &t.a, "b/c", WalkFlags::EMPTY),
        Ok(t.c.ino())
    );
    assert_eq!(
        ino_at(&t.f.root, &t.a, "/a", WalkFlags::EMPTY),
        Ok(t.a.ino())
    );
    // An explicit start (a dirfd) overrides the cwd for relative paths only.
    let c = ctx(&t.f.root, &t.f.root, &NoMounts);
    assert_eq!(
        walk(&c, Some(&t.b), b"c", WalkFlags::EMPTY).unwrap().ino(),
        t.c.ino()
    );
    assert_eq!(
        walk(&c, Some(&t.b), b"/a", WalkFlags::EMPTY).unwrap().ino(),
        t.a.ino()
    );
}

#[test]
fn dot_and_dotdot() {
    let t = tree();
    assert_eq!(ino(&t, "/a/./b/../b/c"), Ok(t.c.ino()));
    assert_eq!(ino(&t, "."), Ok(t.f.root.ino()));
    assert_eq!(ino(&t, "/.."), Ok(t.f.root.ino()));
    assert_eq!(ino(&t, "/../../a"), Ok(t.a.ino()));
    assert_eq!(
        ino_at(&t.f.root, &t.b, "../../../..", WalkFlags::EMPTY),
        Ok(t.f.root.ino())
    );
    assert_eq!(
        ino_at(&t.f.root, &t.b, "..", WalkFlags::EMPTY),
        Ok(t.a.ino())
    );
    // `.` and `..` need a directory to be in.
    assert_eq!(ino(&t, "/file/."), Err(Errno::ENOTDIR));
    assert_eq!(ino(&t, "/file/.."), Err(Errno::ENOTDIR));
}

#[test]
fn dotdot_stops_at_the_process_root() {
    let t = tree();
    // A process chrooted into /a.
    let root = t.a.clone();
    assert_eq!(ino_at(&root, &root, "/..", WalkFlags::EMPTY), Ok(t.a.ino()));
    assert_eq!(
        ino_at(&root, &root, "../../b", WalkFlags::EMPTY),
        Ok(t.b.ino())
    );
    assert_eq!(
        ino_at(&root, &t.b, "../../../x", WalkFlags::EMPTY),
        Ok(t.x.ino())
    );
    assert_eq!(
        ino_at(&root, &root, "/b/c", WalkFlags::EMPTY),
        Ok(t.c.ino())
    );
    // Absolute symlink targets restart at the process root: /abs is outside.
    assert_eq!(
        ino_at(&root, &root, "/rel", WalkFlags::EMPTY),
        Ok(t.c.ino())
    );
    t.a.symlink(b"jail", b"/x", 0, 0).unwrap();
    assert_eq!(
        ino_at(&root, &root, "jail", WalkFlags::EMPTY),
        Ok(t.x.ino())
    );
}

#[test]
fn empty_paths() {
    let t = tree();
    assert_eq!(ino(&t, ""), Err(Errno::ENOENT));
    let c = ctx(&t.f.root, &t.f.root, &NoMounts);
    // AT_EMPTY_PATH names the start itself, which may be any kind of node.
    assert_eq!(
        walk(&c, Some(&t.c), b"", WalkFlags::EMPTY_PATH)
            .unwrap()
            .ino(),
        t.c.ino()
    );
    assert_eq!(
        walk(&c, None, b"", WalkFlags::EMPTY_PATH).unwrap().ino(),
        t.f.root.ino()
    );
    assert_eq!(walk_parent(&c, None, b"").err(), Some(Errno::ENOENT));
    assert_eq!(
        walk_open(&c, None, b"", WalkFlags::EMPTY).err(),
        Some(Errno::ENOENT)
    );
}

#[test]
fn missing_components_and_non_directories() {
    let t = tree();
    assert_eq!(ino(&t, "/a/nope"), Err(Errno::ENOENT));
    assert_eq!(ino(&t, "/nope/b"), Err(Errno::ENOENT));
    assert_eq!(ino(&t, "/a/b/c/d"), Err(Errno::ENOTDIR));
    // A relative path from a start that is not a directory.
    let c = ctx(&t.f.root, &t.f.root, &NoMounts);
    assert_eq!(
        walk(&c, Some(&t.c), b"x", WalkFlags::EMPTY).err(),
        Some(Errno::ENOTDIR)
    );
}

#[test]
fn trailing_slashes_require_directories() {
    let t = tree();
    assert_eq!(ino(&t, "/a/b/"), Ok(t.b.ino()));
    assert_eq!(ino(&t, "/a/b//"), Ok(t.b.ino()));
    assert_eq!(ino(&t, "/a/b/c/"), Err(Errno::ENOTDIR));
    assert_eq!(ino(&t, "/a/b/c"), Ok(t.c.ino()));
    assert_eq!(
        ino_at(&t.f.root, &t.f.root, "/a/b/c", WalkFlags::DIRECTORY),
        Err(Errno::ENOTDIR)
    );
    assert_eq!(
        ino_at(&t.f.root, &t.f.root, "/a/b", WalkFlags::DIRECTORY),
        Ok(t.b.ino())
    );
}

#[test]
fn long_names_and_paths() {
    let t = tree();
    let long = "n".repeat(256);
    assert_eq!(ino(&t, &format!("/a/{long}")), Err(Errno::ENAMETOOLONG));
    assert_eq!(
        ino(&t, &format!("/a/{}", "n".repeat(255))),
        Err(Errno::ENOENT)
    );
    // Components are checked as they are reached, as Linux does.
    assert_eq!(ino(&t, &format!("/nope/{long}")), Err(Errno::ENOENT));
    // 4095 bytes is the longest usable path.
    let ok = format!(".{}", "/.".repeat(2047));
    assert_eq!(ok.len(), 4095);
    assert_eq!(ino(&t, &ok), Ok(t.f.root.ino()));
    let too_long = format!("{ok}/");
    assert_eq!(ino(&t, &too_long), Err(Errno::ENAMETOOLONG));
    let c = ctx(&t.f.root, &t.f.root, &NoMounts);
    assert_eq!(
        walk_parent(&c, None, too_long.as_bytes()).err(),
        Some(Errno::ENAMETOOLONG)
    );
}

#[test]
fn relative_and_absolute_symlinks() {
    let t = tree();
    // Relative targets resolve from the directory holding the link.
    assert_eq!(ino(&t, "/a/rel"), Ok(t.c.ino()));
    assert_eq!(ino(&t, "/a/b/up"), Ok(t.x.ino()));
    assert_eq!(
        ino_at(&t.f.root, &t.b, "up", WalkFlags::EMPTY),
        Ok(t.x.ino())
    );
    // Absolute targets restart at the root; links in the middle are followed.
    assert_eq!(ino(&t, "/abs"), Ok(t.b.ino()));
    assert_eq!(ino(&t, "/abs/c"), Ok(t.c.ino()));
    assert_eq!(ino(&t, "/abs/up"), Ok(t.x.ino()));
    assert_eq!(
        ino(&t, "/abs/../x"),
        Ok(t.x.ino()),
        ".. after a followed link goes up from the target"
    );
    // Dangling links fail at the end, not when listed.
    assert_eq!(ino(&t, "/dangling"), Err(Errno::ENOENT));
}

#[test]
fn nofollow_and_trailing_slash_on_symlinks() {
    let t = tree();
    let abs = t.f.root.lookup(b"abs").unwrap();
    let nofollow = WalkFlags::NOFOLLOW;
    assert_eq!(
        ino_at(&t.f.root, &t.f.root, "/abs", nofollow),
        Ok(abs.ino())
    );
    assert_eq!(
        ino_at(&t.f.root, &t.f.root, "/dangling", nofollow),
        Ok(t.f.root.lookup(b"dangling").unwrap().ino())
    );
    // NOFOLLOW only concerns the last component.
    assert_eq!(
        ino_at(&t.f.root, &t.f.root, "/abs/c", nofollow),
        Ok(t.c.ino())
    );
    // A trailing slash forces the final link to be followed.
    assert_eq!(
        ino_at(&t.f.root, &t.f.root, "/abs/", nofollow),
        Ok(t.b.ino())
    );
    // ... and then the target must be a directory.
    assert_eq!(ino(&t, "/a/rel/"), Err(Errno::ENOTDIR));
    assert_eq!(
        ino_at(&t.f.root, &t.f.root, "/a/rel/", nofollow),
        Err(Errno::ENOTDIR)
    );
}

#[test]
fn symlink_target_with_trailing_slash() {
    let t = tree();
    t.f.root.symlink(b"tofile", b"a/b/c/", 0, 0).unwrap();
    t.f.root.symlink(b"todir", b"a/b/", 0, 0).unwrap();
    assert_eq!(ino(&t, "/tofile"), Err(Errno::ENOTDIR));
    assert_eq!(ino(&t, "/todir"), Ok(t.b.ino()));
    t.f.root.symlink(b"slash", b"/", 0, 0).unwrap();
    assert_eq!(ino(&t, "/slash"), Ok(t.f.root.ino()));
    assert_eq!(ino(&t, "/slash/a/../slash/a/"), Ok(t.a.ino()));
    assert_eq!(ino(&t, "/slash/a/slash"), Err(Errno::ENOENT));
}

#[test]
fn symlink_loops() {
    let t = tree();
    let r = &t.f.root;
    r.symlink(b"self", b"self", 0, 0).unwrap();
    r.symlink(b"ping", b"pong", 0, 0).unwrap();
    r.symlink(b"pong", b"/ping", 0, 0).unwrap();
    r.symlink(b"deep", b"deep/x", 0, 0).unwrap();
    assert_eq!(ino(&t, "/self"), Err(Errno::ELOOP));
    assert_eq!(ino(&t, "/ping"), Err(Errno::ELOOP));
    assert_eq!(ino(&t, "/deep"), Err(Errno::ELOOP));
    assert_eq!(ino(&t, "/self/x"), Err(Errno::ELOOP));
    // Not following the last one avoids the loop.
    assert_eq!(
        ino_at(r, r, "/self", WalkFlags::NOFOLLOW),
        Ok(r.lookup(b"self").unwrap().ino())
    );
}

#[test]
fn at_most_forty_symlinks() {
    let t = tree();
    let r = &t.f.root;
    // l0 -> a/x, l1 -> l0, ..., l40 -> l39: resolving lN follows N+1 links.
    r.symlink(b"l0", b"a/x", 0, 0).unwrap();
    for i in 1..=MAX_SYMLINK_FOLLOWS {
        r.symlink(
            format!("l{i}").as_bytes(),
            format!("l{}", i - 1).as_bytes(),
            0,
            0,
        )
        .unwrap();
    }
    let limit = MAX_SYMLINK_FOLLOWS - 1;
    assert_eq!(ino(&t, &format!("/l{limit}")), Ok(t.x.ino()));
    assert_eq!(
        ino(&t, &format!("/l{}", MAX_SYMLINK_FOLLOWS)),
        Err(Errno::ELOOP)
    );
}

#[test]
fn link_count_spans_the_whole_walk() {
    let t = tree();
    let r = &t.f.root;
    // d0 -> a, dK -> d(K-1): a directory reached through K+1 links.
    r.symlink(b"d0", b"a", 0, 0).unwrap();
    for i in 1..30 {
        r.symlink(
            format!("d{i}").as_bytes(),
            format!("d{}", i - 1).as_bytes(),
            0,
            0,
        )
        .unwrap();
    }
    t.a.symlink(b"back", b"/d9", 0, 0).unwrap();
    // /d19 (20 links) then back (1 + 10 links) = 31: fine.
    assert_eq!(ino(&t, "/d19/back/x"), Ok(t.x.ino()));
    // /d29 (30 links) then back (11 links) = 41: too many.
    assert_eq!(ino(&t, "/d29/back/x"), Err(Errno::ELOOP));
}

#[test]
fn mount_crossing() {
    let t = tree();
    let mnt = mkdir(&t.f.root, "mnt");
    mkfile(&mnt, "hidden");
    let other = TmpFs::new(t.f.clock.clone());
    let oroot = other.root();
    let inner = mkdir(&oroot, "inner");
    let deep = mkfile(&inner, "deep");
    let mut mounts = Mounts::default();
    mounts.mount(&mnt, &oroot);
    let r = &t.f.root;
    let c = ctx(r, r, &mounts);
    let go = |path: &str| walk(&c, None, path.as_bytes(), WalkFlags::EMPTY);
    let at = |start: &Arc<dyn Inode>, path: &str| {
        walk(&c, Some(start), path.as_bytes(), WalkFlags::EMPTY)
    };
    assert!(same_inode(&*go("/mnt").unwrap(), &*oroot));
    assert!(same_inode(&*go("/mnt/inner/deep").unwrap(), &*deep));
    assert_eq!(
        go("/mnt/hidden").err(),
        Some(Errno::ENOENT),
        "the mount covers the directory"
    );
    // `..` from the mounted root leaves through the mount point.
    assert!(same_inode(&*go("/mnt/..").unwrap(), &**r));
    assert!(same_inode(&*go("/mnt/inner/../../a").unwrap(), &*t.a));
    assert!(same_inode(&*at(&oroot, "..").unwrap(), &**r));
    assert!(same_inode(&*at(&inner, "../../a/x").unwrap(), &*t.x));
    // `.` at a mounted root stays there.
    assert!(same_inode(&*at(&oroot, ".").unwrap(), &*oroot));
    // Symlinks on one file system lead into the other.
    r.symlink(b"into", b"/mnt/inner", 0, 0).unwrap();
    assert!(same_inode(&*go("/into/deep").unwrap(), &*deep));
    oroot.symlink(b"out", b"../a/x", 0, 0).unwrap();
    assert!(same_inode(&*go("/mnt/out").unwrap(), &*t.x));
    assert_ne!(go("/mnt").unwrap().fs_id(), r.fs_id());
}

#[test]
fn stacked_mounts_and_mounted_parents() {
    let t = tree();
    let mnt = mkdir(&t.f.root, "mnt");
    let first = TmpFs::new(t.f.clock.clone());
    let second = TmpFs::new(t.f.clock.clone());
    let (r1, r2) = (first.root(), second.root());
    let mut mounts = Mounts::default();
    mounts.mount(&mnt, &r1);
    mounts.mount(&r1, &r2); // mounted again on /mnt: covers the first
    let r = &t.f.root;
    let c = ctx(r, r, &mounts);
    assert!(same_inode(
        &*walk(&c, None, b"/mnt", WalkFlags::EMPTY).unwrap(),
        &*r2
    ));
    assert!(same_inode(
        &*walk(&c, Some(&r2), b"..", WalkFlags::EMPTY).unwrap(),
        &**r
    ));
    // A directory mounted on after a walker got below it: `..` lands on the
    // mounted root, as in Linux.
    let mut later = Mounts::default();
    let third = TmpFs::new(t.f.clock.clone());
    later.mount(&t.a, &third.root());
    let c = ctx(r, r, &later);
    assert!(same_inode(
        &*walk(&c, Some(&t.b), b"..", WalkFlags::EMPTY).unwrap(),
        &*third.root()
    ));
}

#[test]
fn chroot_into_a_mounted_file_system() {
    let t = tree();
    let mnt = mkdir(&t.f.root, "mnt");
    let other = TmpFs::new(t.f.clock.clone());
    let oroot = other.root();
    let mut mounts = Mounts::default();
    mounts.mount(&mnt, &oroot);
    // The process root is the mounted root: `..` must not leave it.
    let c = ctx(&oroot, &oroot, &mounts);
    assert!(same_inode(
        &*walk(&c, None, b"../..", WalkFlags::EMPTY).unwrap(),
        &*oroot
    ));
}

fn user_ctx<'a>(t: &'a Tree, cred: &'a Credentials) -> WalkContext<'a> {
    WalkContext {
        root: &t.f.root,
        cwd: &t.f.root,
        root_mnt: kevlar_vfs::NO_MOUNT,
        cwd_mnt: kevlar_vfs::NO_MOUNT,
        mounts: &NoMounts,
        cred: Some(cred),
    }
}

#[test]
fn search_permission() {
    let t = tree();
    let secret =
        t.f.root
            .create(b"secret", FileType::Directory, 0o700, 0, 0, 0)
            .unwrap();
    mkfile(&secret, "x");
    let group =
        t.f.root
            .create(b"group", FileType::Directory, 0o710, 0, 100, 0)
            .unwrap();
    mkfile(&group, "x");
    // Owner rw-, group ---, other --x: only strangers may search it.
    let odd =
        t.f.root
            .create(b"odd", FileType::Directory, 0o601, 1000, 100, 0)
            .unwrap();
    mkfile(&odd, "x");
    let user = Credentials::new(1000, 1000);
    let member = Credentials {
        uid: 2000,
        gid: 2000,
        groups: vec![100],
        caps: 0,
        scope: None,
    };
    let stranger = Credentials::new(3000, 3000);
    let root = Credentials::root();
    let u = user_ctx(&t, &user);
    let s = user_ctx(&t, &stranger);
    let m = user_ctx(&t, &member);
    let rt = user_ctx(&t, &root);
    let go = |c: &WalkContext<'_>, p: &str| {
        walk(c, None, p.as_bytes(), WalkFlags::EMPTY).map(|n| n.ino())
    };
    assert_eq!(go(&u, "/secret/x"), Err(Errno::EACCES));
    assert!(
        go(&u, "/secret").is_ok(),
        "naming the directory needs no search in it"
    );
    assert_eq!(go(&u, "/secret/."), Err(Errno::EACCES));
    assert!(go(&m, "/group/x").is_ok());
    assert_eq!(go(&u, "/group/x"), Err(Errno::EACCES));
    assert_eq!(
        go(&u, "/odd/x"),
        Err(Errno::EACCES),
        "the owner class denies"
    );
    assert_eq!(
        go(&m, "/odd/x"),
        Err(Errno::EACCES),
        "the group class denies"
    );
    assert!(go(&s, "/odd/x").is_ok(), "the other class allows");
    assert!(go(&rt, "/secret/x").is_ok());
    assert!(go(&ctx(&t.f.root, &t.f.root, &NoMounts), "/secret/x").is_ok());
    // The parent walk checks the last directory too.
    assert_eq!(
        walk_parent(&u, None, b"/secret/new").err(),
        Some(Errno::EACCES)
    );
    assert_eq!(
        walk_open(&u, None, b"/secret/new", WalkFlags::EMPTY).err(),
        Some(Errno::EACCES)
    );
    // Symlink targets are checked like any path.
    t.f.root.symlink(b"peek", b"secret/x", 0, 0).unwrap();
    assert_eq!(go(&u, "/peek"), Err(Errno::EACCES));
}

fn parent(t: &Tree, path: &str) -> Result<ParentLookup> {
    walk_parent(&ctx(&t.f.root, &t.f.root, &NoMounts), None, path.as_bytes())
}

#[test]
fn parent_walks() {
    let t = tree();
    let p = parent(&t, "/a/b/new").unwrap();
    assert!(same_inode(&*p.dir, &*t.b));
    assert_eq!(p.last, LastComponent::Normal(b"new".to_vec()));
    assert!(!p.trailing_slash);
    let p = parent(&t, "/a/b/").unwrap();
    assert!(same_inode(&*p.dir, &*t.a));
    assert_eq!(p.last, LastComponent::Normal(b"b".to_vec()));
    assert!(p.trailing_slash);
    assert_eq!(parent(&t, ".").unwrap().last, LastComponent::Dot);
    let p = parent(&t, "a/b/..").unwrap();
    assert_eq!(p.last, LastComponent::DotDot);
    assert!(same_inode(&*p.dir, &*t.b));
    assert_eq!(parent(&t, "//").unwrap().last, LastComponent::Root);
    // Links in the middle are followed, the last one is not.
    let p = parent(&t, "/abs/new").unwrap();
    assert!(same_inode(&*p.dir, &*t.b));
    let p = parent(&t, "/abs").unwrap();
    assert!(same_inode(&*p.dir, &*t.f.root));
    assert_eq!(p.last, LastComponent::Normal(b"abs".to_vec()));
    assert_eq!(parent(&t, "/nope/new").err(), Some(Errno::ENOENT));
    assert_eq!(parent(&t, "/file/new").err(), Some(Errno::ENOTDIR));
    assert_eq!(
        parent(&t, &format!("/a/{}", "n".repeat(256))).err(),
        Some(Errno::ENAMETOOLONG)
    );
}

#[test]
fn parent_rules_per_operation() {
    let t = tree();
    let p = |path: &str| parent(&t, path).unwrap();
    // mkdir: dots and the root exist; a trailing slash is fine.
    assert_eq!(p(".").name_for_mkdir().err(), Some(Errno::EEXIST));
    assert_eq!(p("..").name_for_mkdir().err(), Some(Errno::EEXIST));
    assert_eq!(p("/").name_for_mkdir().err(), Some(Errno::EEXIST));
    assert_eq!(p("/a/new/").name_for_mkdir().unwrap(), b"new");
    // mknod/symlink/link: a trailing slash cannot name a new non-directory.
    assert_eq!(p("/a/new").name_for_create().unwrap(), b"new");
    assert_eq!(p("/a/new/").name_for_create().err(), Some(Errno::ENOENT));
    assert_eq!(p("/a/x/").name_for_create().err(), Some(Errno::EEXIST));
    assert_eq!(p("..").name_for_create().err(), Some(Errno::EEXIST));
    // unlink
    assert_eq!(p("/a/x").name_for_unlink().unwrap(), b"x");
    assert_eq!(p(".").name_for_unlink().err(), Some(Errno::EISDIR));
    assert_eq!(p("/").name_for_unlink().err(), Some(Errno::EISDIR));
    assert_eq!(p("/a/x/").name_for_unlink().err(), Some(Errno::ENOTDIR));
    assert_eq!(p("/a/b/").name_for_unlink().err(), Some(Errno::EISDIR));
    assert_eq!(p("/a/nope/").name_for_unlink().err(), Some(Errno::ENOENT));
    assert_eq!(
        p("/abs/").name_for_unlink().err(),
        Some(Errno::ENOTDIR),
        "the link itself is not a directory"
    );
    // rmdir
    assert_eq!(p("/a/b/").name_for_rmdir().unwrap(), b"b");
    assert_eq!(p("/a/.").name_for_rmdir().err(), Some(Errno::EINVAL));
    assert_eq!(p("/a/..").name_for_rmdir().err(), Some(Errno::ENOTEMPTY));
    assert_eq!(p("/").name_for_rmdir().err(), Some(Errno::EBUSY));
    // rename
    assert_eq!(p("/a/x").name_for_rename().unwrap(), b"x");
    assert_eq!(p("/a/.").name_for_rename().err(), Some(Errno::EBUSY));
    assert_eq!(p("/").name_for_rename().err(), Some(Errno::EBUSY));
    let (plain, slashed) = (p("/a/x"), p("/a/y/"));
    assert_eq!(
        ParentLookup::check_rename_slashes(&plain, &slashed, false),
        Err(Errno::ENOTDIR)
    );
    assert_eq!(
        ParentLookup::check_rename_slashes(&slashed, &plain, false),
        Err(Errno::ENOTDIR)
    );
    assert_eq!(
        ParentLookup::check_rename_slashes(&slashed, &slashed, true),
        Ok(())
    );
    assert_eq!(
        ParentLookup::check_rename_slashes(&plain, &plain, false),
        Ok(())
    );
}

fn open(t: &Tree, path: &str, flags: WalkFlags) -> Result<OpenLookup> {
    walk_open(
        &ctx(&t.f.root, &t.f.root, &NoMounts),
        None,
        path.as_bytes(),
        flags,
    )
}

fn missing(lookup: Result<OpenLookup>) -> (Arc<dyn Inode>, Vec<u8>, bool) {
    match lookup {
        Ok(OpenLookup::Missing {
            dir,
            name,
            trailing_slash,
        }) => (dir, name, trailing_slash),
        Ok(OpenLookup::Found(n)) => panic!("found inode {}", n.ino()),
        Err(e) => panic!("error {e:?}"),
    }
}

fn found(lookup: Result<OpenLookup>) -> u64 {
    match lookup {
        Ok(OpenLookup::Found(n)) => n.ino(),
        Ok(OpenLookup::Missing { name, .. }) => {
            panic!("missing {:?}", String::from_utf8_lossy(&name))
        }
        Err(e) => panic!("error {e:?}"),
    }
}

#[test]
fn open_walks() {
    let t = tree();
    assert_eq!(found(open(&t, "/a/b/c", WalkFlags::EMPTY)), t.c.ino());
    assert_eq!(found(open(&t, "/a/rel", WalkFlags::EMPTY)), t.c.ino());
    assert_eq!(found(open(&t, "/a/..", WalkFlags::EMPTY)), t.f.root.ino());
    assert_eq!(found(open(&t, "/", WalkFlags::EMPTY)), t.f.root.ino());
    let (dir, name, slash) = missing(open(&t, "/a/new", WalkFlags::EMPTY));
    assert!(same_inode(&*dir, &*t.a));
    assert_eq!((name.as_slice(), slash), (&b"new"[..], false));
    let (_, _, slash) = missing(open(&t, "/a/new/", WalkFlags::EMPTY));
    assert!(slash);
    // A dangling link leads to where its target would be created.
    let (dir, name, _) = missing(open(&t, "/dangling", WalkFlags::EMPTY));
    assert!(same_inode(&*dir, &*t.b));
    assert_eq!(name, b"newfile");
    // ... unless not followed (O_NOFOLLOW, O_EXCL): then it is found.
    let dangling = t.f.root.lookup(b"dangling").unwrap();
    assert_eq!(
        found(open(&t, "/dangling", WalkFlags::NOFOLLOW)),
        dangling.ino()
    );
    assert_eq!(
        open(&t, "/nope/new", WalkFlags::EMPTY).err(),
        Some(Errno::ENOENT)
    );
    assert_eq!(
        open(&t, "/a/b/c/", WalkFlags::EMPTY).err(),
        Some(Errno::ENOTDIR)
    );
    assert_eq!(
        open(&t, "/a/b/c", WalkFlags::DIRECTORY).err(),
        Some(Errno::ENOTDIR)
    );
    // Creating where the lookup said, then opening again, finds it.
    dir.create(&name, FileType::Regular, 0o644, 0, 0, 0)
        .unwrap();
    assert_eq!(
        found(open(&t, "/dangling", WalkFlags::EMPTY)),
        t.b.lookup(b"newfile").unwrap().ino()
    );
}

/// A directory holding one "magic" link, `link`, whose text names nothing
/// but whose [`Inode::magic_link`] is `target`: procfs's fd and exe links.
struct MagicDir {
    target: Arc<dyn Inode>,
    /// The mount the target was reached through (an open file's), or
    /// NO_MOUNT.
    mount: kevlar_vfs::MountId,
}

/// The magic link itself.
struct Magic {
    target: Arc<dyn Inode>,
    mount: kevlar_vfs::MountId,
}

impl Inode for MagicDir {
    fn fs_id(&self) -> u64 {
        9999
    }
    fn ino(&self) -> u64 {
        1
    }
    fn file_type(&self) -> FileType {
        FileType::Directory
    }
    fn stat(&self) -> Result<kevlar_vfs::Stat> {
        Ok(kevlar_vfs::Stat {
            mode: FileType::Directory.mode_bits() | 0o555,
            ..Default::default()
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn lookup(&self, name: &[u8]) -> Result<Arc<dyn Inode>> {
        match name {
            b"link" => Ok(Arc::new(Magic {
                target: self.target.clone(),
                mount: self.mount,
            })),
            _ => Err(Errno::ENOENT),
        }
    }
}

impl Inode for Magic {
    fn fs_id(&self) -> u64 {
        9999
    }
    fn ino(&self) -> u64 {
        2
    }
    fn file_type(&self) -> FileType {
        FileType::Symlink
    }
    fn stat(&self) -> Result<kevlar_vfs::Stat> {
        Ok(kevlar_vfs::Stat {
            mode: FileType::Symlink.mode_bits() | 0o777,
            ..Default::default()
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn read_link(&self) -> Result<Vec<u8>> {
        Ok(b"/does/not/exist (deleted)".to_vec())
    }
    fn magic_link(&self) -> Option<Result<Arc<dyn Inode>>> {
        Some(Ok(self.target.clone()))
    }
    fn magic_link_mount(&self, _node: &Arc<dyn Inode>) -> kevlar_vfs::MountId {
        self.mount
    }
}

#[test]
fn magic_links_jump_to_their_node() {
    let t = tree();
    let m = mkdir(&t.f.root, "m");
    let magic_to_b: Arc<dyn Inode> = Arc::new(MagicDir {
        target: t.b.clone(),
        mount: kevlar_vfs::NO_MOUNT,
    });
    let mut mounts = Mounts::default();
    mounts.mount(&m, &magic_to_b);
    let c = ctx(&t.f.root, &t.f.root, &mounts);
    // Followed in the middle and at the end, whatever the text says.
    assert_eq!(
        walk(&c, None, b"/m/link/c", WalkFlags::EMPTY)
            .unwrap()
            .ino(),
        t.c.ino()
    );
    assert_eq!(
        walk(&c, None, b"/m/link", WalkFlags::EMPTY).unwrap().ino(),
        t.b.ino()
    );
    assert_eq!(
        walk(&c, None, b"/m/link/", WalkFlags::NOFOLLOW)
            .unwrap()
            .ino(),
        t.b.ino()
    );
    // `..` from the target is the target's real parent.
    assert_eq!(
        walk(&c, None, b"/m/link/..", WalkFlags::EMPTY)
            .unwrap()
            .ino(),
        t.a.ino()
    );
    // Not followed at the end with NOFOLLOW: the link itself.
    let link = walk(&c, None, b"/m/link", WalkFlags::NOFOLLOW).unwrap();
    assert_eq!(link.file_type(), FileType::Symlink);
    // open follows it too, and a name under it can be created.
    assert!(
        matches!(walk_open(&c, None, b"/m/link", WalkFlags::EMPTY), Ok(OpenLookup::Found(n)) if n.ino() == t.b.ino())
    );
    match walk_open(&c, None, b"/m/link/new", WalkFlags::EMPTY) {
        Ok(OpenLookup::Missing { dir, name, .. }) => {
            assert_eq!(dir.ino(), t.b.ino());
            assert_eq!(name, b"new");
        }
        _ => panic!("expected a missing entry under the magic link's target"),
    }
    // A magic link to a file cannot be walked through.
    let magic_to_file: Arc<dyn Inode> = Arc::new(MagicDir {
        target: t.c.clone(),
        mount: kevlar_vfs::NO_MOUNT,
    });
    let mut mounts = Mounts::default();
    mounts.mount(&m, &magic_to_file);
    let c = ctx(&t.f.root, &t.f.root, &mounts);
    assert_eq!(
        walk(&c, None, b"/m/link", WalkFlags::EMPTY).unwrap().ino(),
        t.c.ino()
    );
    assert_eq!(
        walk(&c, None, b"/m/link/x", WalkFlags::EMPTY).err(),
        Some(Errno::ENOTDIR)
    );
    assert_eq!(
        walk(&c, None, b"/m/link/", WalkFlags::EMPTY).err(),
        Some(Errno::ENOTDIR)
    );
    // walk_parent leaves a magic link in the last component alone.
    let p = walk_parent(&c, None, b"/m/link").unwrap();
    assert_eq!(p.last, LastComponent::Normal(b"link".to_vec()));
}

#[test]
fn a_magic_link_that_knows_its_mount_continues_the_walk_in_it() {
    let t = tree();
    let m = mkdir(&t.f.root, "m");
    let opened_through: kevlar_vfs::MountId = 7;
    let magic: Arc<dyn Inode> = Arc::new(MagicDir {
        target: t.b.clone(),
        mount: opened_through,
    });
    let mut mounts = Mounts::default();
    mounts.mount(&m, &magic);
    let c = ctx(&t.f.root, &t.f.root, &mounts);
    // At the end and further down: the open file's mount, so its flags
    // (not another bind's of the same file system) apply.
    let (node, mnt) = kevlar_vfs::walk_mnt(&c, None, b"/m/link", WalkFlags::EMPTY).unwrap();
    assert_eq!((node.ino(), mnt), (t.b.ino(), opened_through));
    let (node, mnt) = kevlar_vfs::walk_mnt(&c, None, b"/m/link/c", WalkFlags::EMPTY).unwrap();
    assert_eq!((node.ino(), mnt), (t.c.ino(), opened_through));
    // A link that does not know it leaves the mount unknown.
    let unknown: Arc<dyn Inode> = Arc::new(MagicDir {
        target: t.b.clone(),
        mount: kevlar_vfs::NO_MOUNT,
    });
    let mut mounts = Mounts::default();
    mounts.mount(&m, &unknown);
    let c = ctx(&t.f.root, &t.f.root, &mounts);
    let (_, mnt) = kevlar_vfs::walk_mnt(&c, None, b"/m/link/c", WalkFlags::EMPTY).unwrap();
    assert_eq!(mnt, kevlar_vfs::NO_MOUNT);
}

#[test]
fn open_walk_tells_whether_it_followed_a_link() {
    let t = tree();
    let c = ctx(&t.f.root, &t.f.root, &NoMounts);
    let followed = |path: &str, flags| {
        let (found, _, followed) = kevlar_vfs::walk_open_traced(&c, None, path.as_bytes(), flags).unwrap();
        let node = match found {
            OpenLookup::Found(node) => Some(node.ino()),
            OpenLookup::Missing { .. } => None,
        };
        (node, followed)
    };
    assert_eq!(followed("/a/b/c", WalkFlags::EMPTY), (Some(t.c.ino()), false));
    assert_eq!(followed("/a/b/../x", WalkFlags::EMPTY), (Some(t.x.ino()), false));
    // A link in the middle, and one at the end when it is followed.
    assert_eq!(followed("/abs/c", WalkFlags::EMPTY), (Some(t.c.ino()), true));
    assert_eq!(followed("/a/rel", WalkFlags::EMPTY), (Some(t.c.ino()), true));
    // Not followed at the end: the link itself, no link followed.
    let (node, followed_links) = followed("/a/rel", WalkFlags::NOFOLLOW);
    assert_ne!(node, Some(t.c.ino()));
    assert!(!followed_links);
    // A missing name reached through a link says so too.
    assert_eq!(followed("/dangling", WalkFlags::EMPTY), (None, true));
    assert_eq!(followed("/a/new", WalkFlags::EMPTY), (None, false));
}

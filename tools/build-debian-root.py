#!/usr/bin/env python3
"""A minimal Debian 12 (bookworm) root filesystem as an ext4 image, for the
Debian suite (docs/contracts.md, "The Debian suite").

    build-debian-root.py root      resolve, download and unpack the packages
                                   into build/debian/root (once; cached)
    build-debian-root.py image     also write build/debian/disk.img (mke2fs -d)
    build-debian-root.py --systemd image
                                   the bootable system instead (docs/debian-boot.md):
                                   SYSTEMD_PACKAGES in build/debian-systemd/,
                                   configured by _configure_systemd()

The packages are the ones named in PACKAGES plus everything they depend on,
as apt resolves it for an empty system (`apt-get -s` with an empty dpkg
status, no recommends): the same choice debootstrap makes, without its
chroot and maintainer scripts. They are fetched with `apt-get download`
from whatever mirror the host's apt is configured with (nothing here names
one) into build/debian/debs/, and unpacked with `dpkg-deb --fsys-tarfile`
into a merged-/usr tree (/bin, /sbin, /lib, /lib64 are symlinks into /usr,
as on a freshly installed bookworm). What the maintainer scripts would have
done and the tests need is done here instead: /etc/passwd and /etc/group
from base-passwd's masters, dpkg's database (/var/lib/dpkg/status and
info/<pkg>.list from each package's control data and file list), and the
awk alternative.

The image is deterministic: every time stamp is fixed, UUID and directory
hash seed are fixed, so the same packages and tests always give the same
bytes (the Linux oracle caches its outputs by them). As a module,
`build_image(extra)` returns the image path; `extra` is a list of
(guest path, host file, mode) put into the tree before it is packed (the
suite's init and scripts).
"""

import argparse
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
OUT = os.path.join(REPO_ROOT, "build", "debian")
DEBS = os.path.join(OUT, "debs")
ROOT = os.path.join(OUT, "root")
IMAGE = os.path.join(OUT, "disk.img")
RESOLVED = os.path.join(OUT, "packages.txt")
# Beside the tree, so it stays out of the image.
STAMP = os.path.join(OUT, "root.stamp")
# What the suite exercises; their dependencies come along. usr-is-merged
# stands for the merged-/usr layout this tool makes itself (otherwise apt
# picks usrmerge, which pulls in the whole of perl).
PACKAGES = ["base-files", "base-passwd", "bash", "coreutils", "dash", "debianutils", "diffutils",
            "dpkg", "findutils", "grep", "gzip", "libc-bin", "mawk", "mount", "perl-base",
            "procps", "sed", "strace", "tar", "usr-is-merged", "util-linux", "inotify-tools", "iproute2",
            # Real programs the suite runs on the scratch disk.
            "sqlite3", "python3", "git", "gcc", "make", "libc6-dev",
            # What the gdb script runs.
            "gdb-minimal",
            # Disks: partitioning and file systems (the block-* scripts).
            "fdisk", "e2fsprogs",
            # A DHCP client over AF_PACKET (the dhcp script).
            "isc-dhcp-client",
            # Servers and their clients (nginx.sh, redis.sh, ssh.sh).
            "nginx-light", "curl", "redis-server", "openssh-server", "openssh-client",
            # Kernel keys (keyutils.sh).
            "keyutils",
            # fanotify from a real program (fanotify-fatrace.sh).
            "fatrace"]
# Top-level directories that are symlinks into /usr on a merged-/usr system.
MERGED = {"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib64": "usr/lib64"}
# Empty directories a running system mounts on or writes to.
EMPTY_DIRS = [("proc", 0o555), ("sys", 0o555), ("dev", 0o755), ("tmp", 0o1777), ("run", 0o755),
              ("mnt", 0o755), ("root", 0o700), ("home", 0o755), ("var/tmp", 0o1777),
              ("var/lib/dpkg/updates", 0o755), ("var/lib/dpkg/info", 0o755)]
FIXED_TIME = 1_600_000_000
IMAGE_SIZE = 768 << 20
UUID = "6b6576c1-6172-4578-b432-0000000000d1"
HASH_SEED = "6b6576c1-6172-4578-b432-0000000000d2"


def _run(cmd: list, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, **kw)
    if r.returncode != 0:
        err = r.stderr.decode(errors="replace") if isinstance(r.stderr, bytes) else r.stderr
        sys.exit(f"build-debian-root: {' '.join(cmd[:4])} ... failed:\n{err}")
    return r


def resolve() -> list:
    """[(package, version)] apt would install on an empty system, cached in
    build/debian/packages.txt (keyed by PACKAGES)."""
    key = "# " + " ".join(PACKAGES)
    if os.path.isfile(RESOLVED):
        with open(RESOLVED) as f:
            lines = f.read().splitlines()
        if lines and lines[0] == key:
            return [tuple(l.split()) for l in lines[1:] if l.strip()]
    r = _run(["apt-get", "-s", "-q", "-o", "Dir::State::status=/dev/null",
              "-o", "APT::Install-Recommends=false", "install"] + PACKAGES, text=True)
    pkgs = []
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "Inst":
            pkgs.append((parts[1], parts[2].lstrip("(")))
    if not pkgs:
        sys.exit("build-debian-root: apt resolved no packages (run `apt-get update`?)")
    pkgs.sort()
    os.makedirs(OUT, exist_ok=True)
    with open(RESOLVED, "w") as f:
        f.write(key + "\n" + "".join(f"{p} {v}\n" for p, v in pkgs))
    return pkgs


def _deb_name(pkg: str, version: str) -> str:
    # apt-get download names files <pkg>_<version with ':' as %3a>_<arch>.deb.
    return f"{pkg}_{version.replace(':', '%3a')}_"


def download(pkgs: list) -> list:
    """The .deb file of every package, downloaded once into build/debian/debs."""
    os.makedirs(DEBS, exist_ok=True)
    have = os.listdir(DEBS)
    want = [f"{p}={v}" for p, v in pkgs
            if not any(f.startswith(_deb_name(p, v)) and f.endswith(".deb") for f in have)]
    if want:
        print(f"build-debian-root: downloading {len(want)} packages", file=sys.stderr)
        _run(["apt-get", "download", "-q"] + want, cwd=DEBS, text=True)
        have = os.listdir(DEBS)
    debs = []
    for p, v in pkgs:
        hits = sorted(f for f in have if f.startswith(_deb_name(p, v)) and f.endswith(".deb"))
        if not hits:
            sys.exit(f"build-debian-root: apt-get download gave no file for {p} {v}")
        debs.append(os.path.join(DEBS, hits[-1]))
    return debs


def _map(name: str) -> str:
    """A path from a package (./bin/ls) as it lands in the merged tree
    (usr/bin/ls): the merged top-level directories are symlinks."""
    name = os.path.normpath(name.lstrip("./") if name not in (".", "./") else ".")
    if name == ".":
        return ""
    top, _, rest = name.partition("/")
    if top in MERGED:
        return MERGED[top] + ("/" + rest if rest else "")
    return name


def _extract(deb: str, root: str) -> list:
    """Unpack one package's files into `root`; returns the paths it owns
    (as dpkg lists them: /bin/ls, not the merged location)."""
    data = _run(["dpkg-deb", "--fsys-tarfile", deb]).stdout
    owned = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        for m in tar:
            listed = "/" + os.path.normpath(m.name).lstrip("./") if m.name not in (".", "./") else "/."
            owned.append(listed)
            rel = _map(m.name)
            if not rel:
                continue
            dest = os.path.join(root, rel)
            if m.isdir():
                os.makedirs(dest, exist_ok=True)
                os.chmod(dest, m.mode & 0o7777)
                os.lchown(dest, m.uid, m.gid)
                continue
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if os.path.lexists(dest):
                os.unlink(dest)
            if m.issym():
                os.symlink(m.linkname, dest)
                os.lchown(dest, m.uid, m.gid)
            elif m.islnk():
                os.link(os.path.join(root, _map(m.linkname)), dest)
            elif m.isfile():
                with open(dest, "wb") as f:
                    shutil.copyfileobj(tar.extractfile(m), f)
                os.lchown(dest, m.uid, m.gid)
                os.chmod(dest, m.mode & 0o7777)
            else:
                sys.exit(f"build-debian-root: {deb}: unexpected member {m.name}")
    return owned


def _control(deb: str) -> str:
    return _run(["dpkg-deb", "-f", deb], text=True).stdout


def build_root() -> str:
    """build/debian/root, unpacked once per package set."""
    pkgs = resolve()
    want = "".join(f"{p} {v}\n" for p, v in pkgs) + _configure_version()
    if os.path.isfile(STAMP):
        with open(STAMP) as f:
            if f.read() == want:
                return ROOT
    debs = download(pkgs)
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(os.path.join(ROOT, "usr"))
    for top, target in MERGED.items():
        os.makedirs(os.path.join(ROOT, target), exist_ok=True)
        os.symlink(target, os.path.join(ROOT, top))
    status = []
    info = os.path.join(ROOT, "var", "lib", "dpkg", "info")
    os.makedirs(info, exist_ok=True)
    for (pkg, _), deb in zip(pkgs, debs):
        owned = _extract(deb, ROOT)
        control = _control(deb).rstrip("\n").splitlines()
        # dpkg's status record: the control fields with Status after Package.
        control.insert(1, "Status: install ok installed")
        status.append("\n".join(control) + "\n")
        field = dict(l.split(":", 1) for l in control if ":" in l and not l.startswith(" "))
        # dpkg names the lists of "Multi-Arch: same" packages <pkg>:<arch>.
        listname = f"{pkg}:{field['Architecture'].strip()}" \
            if field.get("Multi-Arch", "").strip() == "same" else pkg
        with open(os.path.join(info, f"{listname}.list"), "w") as f:
            f.write("".join(p + "\n" for p in owned))
    with open(os.path.join(ROOT, "var", "lib", "dpkg", "status"), "w") as f:
        f.write("\n".join(status))
    for name in ("available", "diversions", "statoverride"):
        open(os.path.join(ROOT, "var", "lib", "dpkg", name), "w").close()
    # The multiarch database layout (lists named <pkg>:<arch>.list).
    with open(os.path.join(info, "format"), "w") as f:
        f.write("1\n")
    _configure(ROOT)
    with open(STAMP, "w") as f:
        f.write(want)
    return ROOT


def _configure(root: str) -> None:
    """What the maintainer scripts of these packages would have done and
    the suite relies on."""
    master = os.path.join(root, "usr", "share", "base-passwd")
    for name in ("passwd", "group"):
        shutil.copyfile(os.path.join(master, f"{name}.master"), os.path.join(root, "etc", name))
        os.chmod(os.path.join(root, "etc", name), 0o644)
    # update-alternatives --install /usr/bin/awk awk /usr/bin/mawk (mawk's postinst).
    alt = os.path.join(root, "etc", "alternatives")
    os.makedirs(alt, exist_ok=True)
    os.symlink("/usr/bin/mawk", os.path.join(alt, "awk"))
    os.symlink("/etc/alternatives/awk", os.path.join(root, "usr", "bin", "awk"))
    # debianutils' postinst: the which alternative.
    os.symlink("/usr/bin/which.debianutils", os.path.join(alt, "which"))
    os.symlink("/etc/alternatives/which", os.path.join(root, "usr", "bin", "which"))
    # gcc's and cpp's postinst: cc, c89, c99 and cpp name the default compiler.
    for name, target in (("cc", "/usr/bin/gcc"), ("cpp", "/usr/bin/cpp")):
        if os.path.lexists(os.path.join(root, target.lstrip("/"))) and \
                not os.path.lexists(os.path.join(root, "usr", "bin", name)):
            os.symlink(target, os.path.join(alt, name))
            os.symlink(f"/etc/alternatives/{name}", os.path.join(root, "usr", "bin", name))
    with open(os.path.join(root, "etc", "hostname"), "w") as f:
        f.write("debian\n")
    for d, mode in EMPTY_DIRS:
        p = os.path.join(root, d)
        os.makedirs(p, exist_ok=True)
        os.chmod(p, mode)
    if OUT != SYSTEMD_OUT:
        # The suite's root only: the bootable system configures its own.
        _configure_servers(root)


# System users the servers' postinsts add (adduser --system: the first free
# uid and gid from 100), by name: (the program that brings it, home, shell).
SERVER_USERS = {"redis": ("usr/bin/redis-server", "/var/lib/redis", "/usr/sbin/nologin"),
                "sshd": ("usr/sbin/sshd", "/run/sshd", "/usr/sbin/nologin")}


def _configure_servers(root: str) -> None:
    """What the postinsts of nginx-common, libnginx-mod-http-echo,
    redis-tools/redis-server, openssh-server and libpam-runtime do on a
    fresh install (the parts the suite's nginx.sh, redis.sh and ssh.sh
    rely on). Nothing here if the packages are not in the root."""
    etc = os.path.join(root, "etc")
    with open(os.path.join(etc, "passwd")) as f:
        users = [l.split(":") for l in f.read().splitlines() if l]
    with open(os.path.join(etc, "group")) as f:
        groups = [l.split(":") for l in f.read().splitlines() if l]
    ids = {}
    for name, (program, home, shell) in SERVER_USERS.items():
        if not os.path.lexists(os.path.join(root, program)):
            continue
        uid = next(i for i in range(100, 1000) if str(i) not in {u[2] for u in users})
        gid = next(i for i in range(100, 1000) if str(i) not in {g[2] for g in groups})
        # adduser --system --group gives a group of the same name; without
        # --group (sshd) the user is in nogroup.
        if name == "redis":
            groups.append([name, "*", str(gid), ""])
        else:
            gid = 65534
        users.append([name, "*", str(uid), str(gid), "", home, shell])
        ids[name] = (uid, gid)
    with open(os.path.join(etc, "passwd"), "w") as f:
        f.write("".join(":".join(u) + "\n" for u in users))
    with open(os.path.join(etc, "group"), "w") as f:
        f.write("".join(":".join(g) + "\n" for g in groups))
    gid_of = {g[0]: int(g[2]) for g in groups}
    uid_of = {u[0]: int(u[2]) for u in users}

    nginx = os.path.join(etc, "nginx")
    if os.path.isdir(nginx):
        link = os.path.join(nginx, "sites-enabled", "default")
        if not os.path.lexists(link):
            os.symlink("/etc/nginx/sites-available/default", link)
        for conf in ("mod-http-echo.conf",):
            if os.path.isfile(os.path.join(root, "usr/share/nginx/modules-available", conf)):
                os.symlink(f"/usr/share/nginx/modules-available/{conf}",
                           os.path.join(nginx, "modules-enabled", f"50-{conf}"))
        logdir = os.path.join(root, "var", "log", "nginx")
        os.chown(logdir, 0, gid_of["adm"])
        os.chmod(logdir, 0o755)
        for name in ("access.log", "error.log"):
            path = os.path.join(logdir, name)
            open(path, "w").close()
            os.chmod(path, 0o640)
            os.chown(path, uid_of["www-data"], gid_of["adm"])
        html = os.path.join(root, "var", "www", "html")
        os.makedirs(html, exist_ok=True)
        shutil.copyfile(os.path.join(root, "usr/share/nginx/html/index.html"),
                        os.path.join(html, "index.nginx-debian.html"))
    if "redis" in ids:
        uid, gid = ids["redis"]
        for d, mode, group in (("var/log/redis", 0o2750, gid_of["adm"]), ("var/lib/redis", 0o750, gid),
                               ("etc/redis", 0o2770, gid)):
            p = os.path.join(root, d)
            os.makedirs(p, exist_ok=True)
            os.chown(p, uid, group)
            os.chmod(p, mode)
        # dpkg-statoverride --add redis redis 640 /etc/redis/redis.conf
        os.chown(os.path.join(etc, "redis", "redis.conf"), uid, gid)
        os.chmod(os.path.join(etc, "redis", "redis.conf"), 0o640)
    if "sshd" in ids:
        # sshd_config from its template (ucf); host keys are made by the
        # script at run time (random: they would change the image).
        shutil.copyfile(os.path.join(root, "usr/share/openssh/sshd_config"),
                        os.path.join(etc, "ssh", "sshd_config"))
        # The privilege separation directory (tmpfiles.d makes it at boot).
        os.makedirs(os.path.join(root, "run", "sshd"), exist_ok=True)
        os.chmod(os.path.join(root, "run", "sshd"), 0o755)
    pam = os.path.join(etc, "pam.d")
    if os.path.isfile(os.path.join(root, "usr/share/pam-configs/unix")) and \
            not os.path.exists(os.path.join(pam, "common-auth")):
        # pam-auth-update with only pam_unix's profile (libpam-runtime's postinst).
        head = "# here are the per-package modules (the \"Primary\" block)\n"
        for name, body in (
                ("common-auth", "auth\t[success=1 default=ignore]\tpam_unix.so nullok\n"
                                "auth\trequisite\t\t\tpam_deny.so\nauth\trequired\t\t\tpam_permit.so\n"),
                ("common-account", "account\t[success=1 new_authtok_reqd=done default=ignore]\tpam_unix.so\n"
                                   "account\trequisite\t\t\tpam_deny.so\naccount\trequired\t\t\tpam_permit.so\n"),
                ("common-password", "password\t[success=1 default=ignore]\tpam_unix.so obscure yescrypt\n"
                                    "password\trequisite\t\t\tpam_deny.so\npassword\trequired\t\t\tpam_permit.so\n"),
                ("common-session", "session\t[default=1]\t\t\tpam_permit.so\nsession\trequisite\t\t\tpam_deny.so\n"
                                   "session\trequired\t\t\tpam_permit.so\nsession\trequired\tpam_unix.so\n"),
                ("common-session-noninteractive",
                 "session\t[default=1]\t\t\tpam_permit.so\nsession\trequisite\t\t\tpam_deny.so\n"
                 "session\trequired\t\t\tpam_permit.so\nsession\trequired\tpam_unix.so\n")):
            with open(os.path.join(pam, name), "w") as f:
                f.write(head + body)
            os.chmod(os.path.join(pam, name), 0o644)


def _tool(name: str) -> str:
    for d in ("/sbin", "/usr/sbin", "/usr/bin", "/bin"):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    return name


def build_image(extra: list, out: str = IMAGE) -> str:
    """Pack the root plus `extra` [(guest path, host file, mode)] into an
    ext4 image (Debian's mkfs.ext4 defaults, 4 KiB blocks), deterministically."""
    root = build_root()
    # mke2fs -d copies each file's ctime, which cannot be set on the host:
    # packing the same tree again gives different bytes (and the Linux
    # oracle's cache, keyed by them, a miss). So the image is only made
    # again when what goes into it changed.
    h = hashlib.sha256()
    with open(STAMP, "rb") as f:
        h.update(f.read())
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    for guest, src, mode in extra:
        with open(src, "rb") as f:
            h.update(f"{guest} {mode:o} ".encode() + hashlib.sha256(f.read()).digest())
    key_file = out + ".key"
    if os.path.isfile(out) and os.path.isfile(key_file):
        with open(key_file) as f:
            if f.read() == h.hexdigest():
                return out
    contracts = os.path.join(root, "contracts")
    shutil.rmtree(contracts, ignore_errors=True)
    for guest, src, mode in extra:
        dest = os.path.join(root, guest.lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(src, dest)
        os.chmod(dest, mode)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (FIXED_TIME, FIXED_TIME), follow_symlinks=False)
    os.utime(root, (FIXED_TIME, FIXED_TIME))
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.truncate(IMAGE_SIZE)
    env = dict(os.environ, E2FSPROGS_FAKE_TIME=str(FIXED_TIME))
    r = subprocess.run([_tool("mke2fs"), "-q", "-F", "-t", "ext4", "-b", "4096", "-L", "debian",
                        "-U", UUID, "-E", f"root_owner=0:0,hash_seed={HASH_SEED}",
                        "-d", root, tmp], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"build-debian-root: mke2fs failed (apt-get install e2fsprogs): {r.stderr}")
    os.replace(tmp, out)
    with open(key_file, "w") as f:
        f.write(h.hexdigest())
    return out


# ---------------------------------------------------------------------------
# The bootable system (`--systemd`, docs/debian-boot.md): Debian 12 with
# systemd as PID 1, booted from the image by `make run-debian`.
# ---------------------------------------------------------------------------

SYSTEMD_OUT = os.path.join(REPO_ROOT, "build", "debian-systemd")
SYSTEMD_PACKAGES = ["base-files", "base-passwd", "bash", "coreutils", "dash", "debianutils", "diffutils",
                    "dpkg", "findutils", "grep", "gzip", "libc-bin", "mawk", "mount", "perl-base",
                    "sed", "tar", "usr-is-merged", "util-linux", "login", "passwd", "hostname",
                    "systemd", "systemd-sysv", "dbus", "udev", "openssh-server", "iproute2",
                    "ifupdown", "isc-dhcp-client", "procps", "less", "vim-tiny", "e2fsprogs",
                    "kmod", "iputils-ping", "netbase", "strace"]
SYSTEMD_IMAGE_SIZE = 1 << 30
# root's password, set at build time (documented in docs/debian-boot.md).
ROOT_PASSWORD = "kevlar"
# The fixed salt keeps the hash (and so the image) the same on every build.
ROOT_SALT = "kevlarboot"
MACHINE_ID = "6b6576c16172457800000000000000d3"
HOSTNAME = "kevlar-debian"
# Units the packages' maintainer scripts enable (deb-systemd-helper enable),
# by package: systemd's getty@ and remote-fs.target, openssh-server's ssh,
# ifupdown's networking.
ENABLED_UNITS = ["getty@.service", "remote-fs.target", "ssh.service", "networking.service"]


def _configure_version() -> str:
    """A line for the root's stamp that changes with the bootable system's
    configuration steps, so a tree made by older ones is made again (the
    Debian suite's root, configured by _configure alone, has none)."""
    if OUT != SYSTEMD_OUT:
        return ""
    import inspect
    h = hashlib.sha256()
    for f in (_configure_systemd, _pam_common, _pam_profiles):
        h.update(inspect.getsource(f).encode())
    return f"configure {h.hexdigest()[:16]}\n"


def use_systemd() -> None:
    """Point this module at the bootable system: its own directory, package
    list and image size, and _configure_systemd() after _configure()."""
    global OUT, DEBS, ROOT, IMAGE, RESOLVED, STAMP, PACKAGES, IMAGE_SIZE, _configure
    OUT = SYSTEMD_OUT
    DEBS = os.path.join(OUT, "debs")
    ROOT = os.path.join(OUT, "root")
    IMAGE = os.path.join(OUT, "disk.img")
    RESOLVED = os.path.join(OUT, "packages.txt")
    STAMP = os.path.join(OUT, "root.stamp")
    PACKAGES = SYSTEMD_PACKAGES
    IMAGE_SIZE = SYSTEMD_IMAGE_SIZE
    base = _configure

    def configure(root: str) -> None:
        base(root)
        _configure_systemd(root)
    _configure = configure


def client_key() -> str:
    """The private key whose public half is root's authorized key in the
    image (made once, beside the tree)."""
    return os.path.join(SYSTEMD_OUT, "ssh", "id_ed25519")


def _write(root: str, path: str, text: str, mode: int = 0o644) -> None:
    dest = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if os.path.lexists(dest):
        os.unlink(dest)
    with open(dest, "w") as f:
        f.write(text)
    os.chmod(dest, mode)


def _pam_profiles(root: str) -> list:
    """The PAM profiles in /usr/share/pam-configs that are on by default,
    highest priority first: [{field: text}]."""
    conf = os.path.join(root, "usr", "share", "pam-configs")
    profiles = []
    for name in sorted(os.listdir(conf)) if os.path.isdir(conf) else []:
        fields, key = {}, None
        with open(os.path.join(conf, name)) as f:
            for line in f.read().splitlines():
                if line[:1] in (" ", "\t") and key:
                    fields[key] += line.strip() + "\n"
                elif ":" in line:
                    key, _, value = line.partition(":")
                    fields[key] = value.strip() + ("\n" if value.strip() else "")
        if fields.get("Default", "").strip() == "yes":
            profiles.append(fields)
    profiles.sort(key=lambda p: -int(p.get("Priority", "0").strip() or 0))
    return profiles


def _pam_common(root: str) -> None:
    """/etc/pam.d/common-*, as libpam-runtime's postinst makes them with
    pam-auth-update from its templates and the default profiles: every
    PAM service (login, sshd, su) includes them, and without them PAM
    aborts ("PAM Failure, aborting: Critical error")."""
    profiles = _pam_profiles(root)
    kinds = {"auth": "Auth", "account": "Account", "password": "Password",
             "session": "Session", "session_nonint": "Session"}
    values = {}
    for var, field in kinds.items():
        primary, additional = [], []
        for p in profiles:
            kind = p.get(f"{field}-Type", "").strip()
            first = not primary if kind == "Primary" else not additional
            text = p.get(f"{field}-Initial" if first and f"{field}-Initial" in p else field, "")
            lines = [l for l in text.splitlines() if l.strip()]
            (primary if kind == "Primary" else additional).extend(lines)
        word = var.split("_")[0]
        if not primary:
            # Nothing decides: a module that lets the stack go on.
            primary = ["[default=1]\t\t\tpam_permit.so"]
        # `success=end` jumps past the rest of the primary block and the
        # pam_deny.so the template puts after it.
        primary = [l.replace("success=end", f"success={len(primary) - i}") for i, l in enumerate(primary)]
        values[f"{var}_primary"] = "".join(f"{word}\t{l}\n" for l in primary)
        values[f"{var}_additional"] = "".join(f"{word}\t{l}\n" for l in additional)
    templates = os.path.join(root, "usr", "share", "pam")
    for name in ("common-auth", "common-account", "common-password", "common-session",
                 "common-session-noninteractive"):
        with open(os.path.join(templates, name)) as f:
            lines = f.read().splitlines(keepends=True)
        _write(root, f"etc/pam.d/{name}", "".join(values.get(l.strip()[1:], "") if l.startswith("$") else l
                                                   for l in lines))


def _configure_systemd(root: str) -> None:
    """What the maintainer scripts of the system's packages would have done
    (users, configuration files made by postinst, enabled units, host keys),
    and what an installer asks: root's password, host name, fstab, network."""
    # Shadow passwords: every account locked but root's.
    days = FIXED_TIME // 86400
    pw = _run(["openssl", "passwd", "-6", "-salt", ROOT_SALT, ROOT_PASSWORD], text=True).stdout.strip()
    with open(os.path.join(root, "etc", "passwd")) as f:
        users = [l.split(":") for l in f.read().splitlines() if l]
    _write(root, "etc/passwd", "".join(":".join([u[0], "x"] + u[2:]) + "\n" for u in users))
    _write(root, "etc/shadow", "".join(
        f"{u[0]}:{pw if u[0] == 'root' else '*'}:{days}:0:99999:7:::\n" for u in users), 0o640)
    with open(os.path.join(root, "etc", "group")) as f:
        groups = [l.split(":") for l in f.read().splitlines() if l]
    _write(root, "etc/gshadow", "".join(f"{g[0]}:*::\n" for g in groups), 0o640)
    # The system users of the packages' sysusers.d files (systemd-journal,
    # systemd-network, messagebus...) and openssh-server's privilege
    # separation user, which its postinst makes with adduser.
    r = subprocess.run(["systemd-sysusers", f"--root={root}", "-"], input="u sshd - - /run/sshd /usr/sbin/nologin\n",
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"build-debian-root: systemd-sysusers failed: {r.stderr}")
    r = subprocess.run(["systemd-sysusers", f"--root={root}"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"build-debian-root: systemd-sysusers failed: {r.stderr}")
    shadow_gid = next((g[2] for g in groups if g[0] == "shadow"), "42")
    for name in ("shadow", "gshadow"):
        os.chown(os.path.join(root, "etc", name), 0, int(shadow_gid))
    _write(root, "etc/shells", "# /etc/shells: valid login shells\n/bin/sh\n/usr/bin/sh\n/bin/bash\n"
           "/usr/bin/bash\n/bin/dash\n/usr/bin/dash\n")
    _write(root, "etc/hostname", HOSTNAME + "\n")
    _write(root, "etc/hosts", f"127.0.0.1\tlocalhost\n127.0.1.1\t{HOSTNAME}\n::1\tlocalhost ip6-localhost ip6-loopback\n")
    _write(root, "etc/fstab", "# <file system> <mount point> <type> <options> <dump> <pass>\n"
           "/dev/vda\t/\text4\terrors=remount-ro\t0\t1\n")
    # Predictable interface names are off on the command line (net.ifnames=0),
    # so the card is eth0 under both kernels.
    # eth0 is `auto` (networking.service runs dhclient on it at boot under
    # both kernels) rather than `allow-hotplug`, which waits for udev to
    # see the card: Kevlar's sysfs has no /sys/class/net.
    _write(root, "etc/network/interfaces", "source /etc/network/interfaces.d/*\n\n"
           "auto lo\niface lo inet loopback\n\nauto eth0\niface eth0 inet dhcp\n")
    os.makedirs(os.path.join(root, "etc", "network", "interfaces.d"), exist_ok=True)
    _write(root, "etc/resolv.conf", "nameserver 10.0.2.3\n")
    _write(root, "etc/machine-id", MACHINE_ID + "\n", 0o444)
    os.makedirs(os.path.join(root, "var", "lib", "dbus"), exist_ok=True)
    os.symlink("/etc/machine-id", os.path.join(root, "var", "lib", "dbus", "machine-id"))
    os.makedirs(os.path.join(root, "var", "log", "journal"), exist_ok=True)
    _pam_common(root)
    # base-files' postinst: root's shell start-up files (its prompt).
    for name in ("profile", "bashrc"):
        src = os.path.join(root, "usr", "share", "base-files", f"dot.{name}")
        if os.path.isfile(src):
            with open(src) as f:
                _write(root, f"root/.{name}", f.read())
    # openssh-server's postinst: sshd_config from its template, host keys.
    with open(os.path.join(root, "usr", "share", "openssh", "sshd_config")) as f:
        _write(root, "etc/ssh/sshd_config", f.read())
    _run(["ssh-keygen", "-A", "-f", root])
    key = client_key()
    if not os.path.isfile(key):
        os.makedirs(os.path.dirname(key), exist_ok=True)
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "kevlar-debian-boot", "-f", key])
    with open(key + ".pub") as f:
        _write(root, "root/.ssh/authorized_keys", f.read(), 0o600)
    os.chmod(os.path.join(root, "root", ".ssh"), 0o700)
    # update-alternatives as the postinsts of less and vim-tiny run it.
    alt = os.path.join(root, "etc", "alternatives")
    for name, target in (("pager", "/usr/bin/less"), ("vi", "/usr/bin/vim.tiny"),
                         ("editor", "/usr/bin/vim.tiny")):
        if os.path.lexists(os.path.join(root, target.lstrip("/"))):
            os.symlink(target, os.path.join(alt, name))
            os.symlink(f"/etc/alternatives/{name}", os.path.join(root, "usr", "bin", name))
    # The serial console's device may take longer than systemd's 90 s to
    # appear when a busy host runs the boot under TCG (udev's coldplug is
    # slow there; Linux's getty failed that way at a host load of 28):
    # serial-getty@ttyS0 waits for it up to 10 minutes.
    _write(root, "etc/systemd/system/dev-ttyS0.device.d/timeout.conf",
           "[Unit]\nJobRunningTimeoutSec=10min\n")
    r = subprocess.run(["systemctl", f"--root={root}", "enable"] + ENABLED_UNITS,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"build-debian-root: systemctl enable failed: {r.stderr}")
    # libc-bin's trigger.
    _run([_tool("ldconfig"), "-r", root])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("root", "image"))
    p.add_argument("--systemd", action="store_true",
                   help="the bootable Debian with systemd as init (build/debian-systemd)")
    ns = p.parse_args(argv)
    if ns.systemd:
        use_systemd()
    if ns.what == "root":
        print(build_root())
    else:
        print(build_image([], out=IMAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Write a kernel symbol table into the `.ksyms` section of a linked kernel.

The kernel reserves a fixed-size, zero-filled `.ksyms` section in a loaded
read-only segment. This tool overwrites that section's bytes in the ELF file
with a symbol table blob that `libs/kevlar_ksyms` reads at run time to print
`function+0xoff` in backtraces. Only bytes inside the section change, so
addresses stay put and nothing has to be relinked.

Usage:
    embed-symbols.py KERNEL_ELF
        Embed the symbols of KERNEL_ELF (from `nm`) into its own `.ksyms`.
    embed-symbols.py --from-nm NM_OUTPUT_FILE --out BLOB
        Build a bare blob from saved `nm -n -S -C --defined-only` output
        (used for the test fixture shared with the Rust reader).
    embed-symbols.py --self-test
        Check the writer against this file's independent reader.

The `nm` program can be overridden with the NM environment variable (for
example NM=llvm-nm); it must accept `-n -S -C --defined-only`.

Blob format, version 1, all integers little-endian (the authoritative
description is the crate documentation of libs/kevlar_ksyms):
    header (20 bytes): b"KSYM", u32 version = 1, u32 symbol_count,
                       u32 strings_offset (from blob start), u32 strings_len
    symbol_count entries of 24 bytes, sorted by address ascending:
                       u64 address, u32 size (0 = unknown),
                       u32 name_offset (into strings), u32 name_len,
                       u32 reserved = 0
    strings:           UTF-8 names, not NUL-terminated
"""

from __future__ import annotations

import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"KSYM"
VERSION = 1
HEADER = struct.Struct("<4sIIII")
ENTRY = struct.Struct("<QIIII")
SECTION_NAME = ".ksyms"

# nm type letters for code: t/T local/global text, w/W weak.
TEXT_TYPES = frozenset("tTwW")
# Left over when a legacy-mangled Rust name is demangled by an nm that keeps
# the hash; it makes every name longer and differs per build, so drop it.
HASH_SUFFIX = re.compile(r"::h[0-9a-f]{16}$")

# The shared test vector lives with the Rust crate that reads it.
REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURE_DIR = REPO_ROOT / "libs" / "kevlar_ksyms" / "tests"


class ToolError(Exception):
    """A problem to report to the user as one line, without a traceback."""


@dataclass(frozen=True)
class Symbol:
    address: int
    size: int  # 0 when nm does not know it
    name: str
    kind: str  # the nm type letter


# --------------------------------------------------------------------------
# Symbols from nm
# --------------------------------------------------------------------------

def parse_nm(text: str) -> list[Symbol]:
    """Parse `nm -S` output: `ADDR [SIZE] TYPE NAME`.

    The name is taken as the whole rest of the line because demangled Rust
    names contain spaces (`<T as Trait>::method`). SIZE is absent for symbols
    without one; since nm prints sizes zero-padded and types as one letter, a
    one-character second field means "no size".
    """
    symbols = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split(None, 2)
        try:
            if len(fields) == 3 and len(fields[1]) == 1:
                address, kind, name = int(fields[0], 16), fields[1], fields[2]
                size = 0
            else:
                address, size_text, rest = fields
                kind, name = rest.split(None, 1)
                size = int(size_text, 16)
                address = int(address, 16)
        except ValueError:
            # Any unexpected shape (including too few fields) lands here.
            raise ToolError(f"cannot parse nm output line {lineno}: {line!r}") from None
        if len(kind) != 1:
            raise ToolError(f"cannot parse nm output line {lineno}: {line!r}")
        symbols.append(Symbol(address, size, name, kind))
    return symbols


def select_symbols(symbols: list[Symbol]) -> list[Symbol]:
    """Keep named code symbols, one per address, sorted by address."""
    by_address: dict[int, list[Symbol]] = {}
    for sym in symbols:
        if sym.kind not in TEXT_TYPES:
            continue
        # `.L*` are assembler-local labels, `$*` are mapping symbols; neither
        # names a function.
        if sym.name.startswith((".L", "$")):
            continue
        name = HASH_SUFFIX.sub("", sym.name)
        if not name:
            continue
        # The blob stores sizes as u32; anything larger is nonsense for one
        # function, so treat it as unknown rather than fail.
        size = sym.size if sym.size <= 0xFFFF_FFFF else 0
        if not 0 <= sym.address <= 0xFFFF_FFFF_FFFF_FFFF:
            raise ToolError(f"address of {name!r} does not fit in 64 bits")
        by_address.setdefault(sym.address, []).append(Symbol(sym.address, size, name, sym.kind))

    chosen = []
    for address in sorted(by_address):
        candidates = by_address[address]
        # Several names at one address are aliases, identical-code-folded
        # functions, or linker-script markers like `__text_start`. Prefer a
        # symbol with a size (a real function, not a marker), then a global
        # one, then the shortest name; ties keep nm's order (the first).
        best = min(
            enumerate(candidates),
            key=lambda item: (item[1].size == 0, item[1].kind.islower(), len(item[1].name), item[0]),
        )[1]
        if best.size == 0:
            # Borrow a size from another alias if any knows one.
            size = max(c.size for c in candidates)
            best = Symbol(best.address, size, best.name, best.kind)
        chosen.append(best)
    return chosen


def run_nm(elf: Path) -> str:
    nm = os.environ.get("NM", "nm")
    cmd = [nm, "-n", "-S", "-C", "--defined-only", str(elf)]
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ToolError(f"cannot run {nm!r}; install binutils or set NM") from None
    if result.returncode != 0:
        raise ToolError(f"{' '.join(cmd)} failed: {result.stderr.strip()}")
    return result.stdout


# --------------------------------------------------------------------------
# Blob writer and (independent) reader
# --------------------------------------------------------------------------

def build_blob(symbols: list[Symbol]) -> bytes:
    """Encode symbols (already sorted and de-duplicated) as a version-1 blob."""
    strings = bytearray()
    # Identical names (e.g. monomorphized generics once the hash is gone) are
    # stored once; the format allows entries to share string bytes.
    name_at: dict[str, tuple[int, int]] = {}
    entries = bytearray()
    previous = None
    for sym in symbols:
        if previous is not None and sym.address <= previous:
            raise ToolError("internal error: symbols not strictly ascending")
        previous = sym.address
        if sym.name not in name_at:
            encoded = sym.name.encode("utf-8")
            name_at[sym.name] = (len(strings), len(encoded))
            strings += encoded
        offset, length = name_at[sym.name]
        entries += ENTRY.pack(sym.address, sym.size, offset, length, 0)
    strings_offset = HEADER.size + len(entries)
    if strings_offset + len(strings) > 0xFFFF_FFFF:
        raise ToolError("symbol table larger than 4 GiB")
    header = HEADER.pack(MAGIC, VERSION, len(symbols), strings_offset, len(strings))
    return header + bytes(entries) + bytes(strings)


def read_blob(blob: bytes) -> list[tuple[int, int, str]]:
    """Decode a blob into (address, size, name) tuples, checking every rule the
    Rust reader checks. Written separately from build_blob so the self-test
    compares two implementations rather than one with itself."""
    if len(blob) < HEADER.size:
        raise ValueError("blob shorter than header")
    magic, version, count, strings_offset, strings_len = HEADER.unpack_from(blob, 0)
    if magic != MAGIC or version != VERSION:
        raise ValueError("bad magic or version")
    entries_end = HEADER.size + count * ENTRY.size
    if entries_end > len(blob) or strings_offset < entries_end:
        raise ValueError("entries out of bounds")
    if strings_offset + strings_len > len(blob):
        raise ValueError("strings out of bounds")
    strings = blob[strings_offset:strings_offset + strings_len]
    out = []
    for i in range(count):
        address, size, name_offset, name_len, _ = ENTRY.unpack_from(blob, HEADER.size + i * ENTRY.size)
        if name_offset + name_len > len(strings):
            raise ValueError(f"name of entry {i} out of bounds")
        if out and address < out[-1][0]:
            raise ValueError("entries not sorted")
        out.append((address, size, strings[name_offset:name_offset + name_len].decode("utf-8")))
    return out


def lookup(entries: list[tuple[int, int, str]], addr: int) -> tuple[str, int] | None:
    """Same answer as the Rust `SymbolTable::lookup`: greatest address <= addr,
    refused if addr is at or past a known size."""
    found = None
    for address, size, name in entries:
        if address > addr:
            break
        found = (address, size, name)
    if found is None:
        return None
    address, size, name = found
    if size and addr - address >= size:
        return None
    return name, addr - address


# --------------------------------------------------------------------------
# ELF64 section lookup
# --------------------------------------------------------------------------

SHT_NOBITS = 8
SHF_ALLOC = 0x2
PT_LOAD = 1
SHN_XINDEX = 0xFFFF

ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
SECTION_HEADER = struct.Struct("<IIQQQQIIQQ")
PROGRAM_HEADER = struct.Struct("<IIQQQQQQ")


@dataclass(frozen=True)
class Section:
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int


def _unpack(fmt: struct.Struct, data: bytes, offset: int, what: str) -> tuple:
    if offset < 0 or offset + fmt.size > len(data):
        raise ToolError(f"truncated ELF file: {what} at {offset:#x} is past the end")
    return fmt.unpack_from(data, offset)


def find_section(data: bytes, wanted: str) -> Section:
    """Locate section `wanted` in a little-endian ELF64 image."""
    if data[:4] != b"\x7fELF":
        raise ToolError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ToolError("not a little-endian 64-bit ELF file")
    header = _unpack(ELF_HEADER, data, 0, "ELF header")
    shoff, shentsize, shnum, shstrndx = header[6], header[11], header[12], header[13]
    phoff, phentsize, phnum = header[5], header[9], header[10]
    if shoff == 0:
        raise ToolError("ELF file has no section headers")
    if shentsize < SECTION_HEADER.size:
        raise ToolError(f"unexpected section header size {shentsize}")

    def section_header(index: int) -> tuple:
        return _unpack(SECTION_HEADER, data, shoff + index * shentsize, f"section header {index}")

    # ELF extended numbering: with many sections the real count and the
    # string-table index are kept in section header 0 instead.
    if shnum == 0:
        shnum = section_header(0)[5]
    if shstrndx == SHN_XINDEX:
        shstrndx = section_header(0)[6]
    if shstrndx >= shnum:
        raise ToolError("ELF section name table index out of range")
    names_hdr = section_header(shstrndx)
    names = data[names_hdr[4]:names_hdr[4] + names_hdr[5]]

    for index in range(shnum):
        sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size = section_header(index)[:6]
        end = names.find(b"\0", sh_name)
        if sh_name >= len(names) or end < 0:
            continue
        if names[sh_name:end].decode("utf-8", "replace") != wanted:
            continue
        section = Section(wanted, sh_type, sh_flags, sh_addr, sh_offset, sh_size)
        _check_loaded(data, section, phoff, phentsize, phnum)
        return section
    raise ToolError(
        f"section {wanted} not found; the linker script must reserve it "
        f"(a zero-filled, loaded, read-only section named {wanted})"
    )


def _check_loaded(data: bytes, section: Section, phoff: int, phentsize: int, phnum: int) -> None:
    """Make sure writing the section's file bytes really changes what the
    kernel sees at run time."""
    if section.type == SHT_NOBITS:
        # Happens with `(NOLOAD)` in the linker script, or with GNU ld when the
        # section is reserved by `. += N` alone: the file then holds no bytes
        # to overwrite and the loader would just zero-fill the memory.
        raise ToolError(
            f"section {section.name} has no file contents (SHT_NOBITS); reserve it "
            f"with initialised, immutable data so the linker writes its bytes"
        )
    if not section.flags & SHF_ALLOC:
        raise ToolError(f"section {section.name} is not allocated (not loaded at run time)")
    if section.offset + section.size > len(data):
        raise ToolError(f"section {section.name} extends past the end of the file")
    if phoff == 0 or phnum == 0 or phentsize < PROGRAM_HEADER.size:
        return  # No program headers to cross-check (e.g. a relocatable object).
    for index in range(phnum):
        p_type, _flags, p_offset, _vaddr, _paddr, p_filesz = _unpack(
            PROGRAM_HEADER, data, phoff + index * phentsize, f"program header {index}")[:6]
        if p_type == PT_LOAD and p_offset <= section.offset and \
                section.offset + section.size <= p_offset + p_filesz:
            return
    raise ToolError(f"section {section.name} is not inside the file part of any PT_LOAD segment")


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------

def embed(elf: Path, nm_text: str | None = None) -> tuple[int, int, int]:
    """Write the blob into `elf`'s .ksyms; returns (symbols, bytes, reserved)."""
    try:
        data = elf.read_bytes()
    except OSError as err:
        raise ToolError(f"cannot read {elf}: {err.strerror}") from None
    section = find_section(data, SECTION_NAME)
    if nm_text is None:
        nm_text = run_nm(elf)
    symbols = select_symbols(parse_nm(nm_text))
    blob = build_blob(symbols)
    if len(blob) > section.size:
        raise ToolError(
            f"symbol table needs {len(blob)} bytes but {SECTION_NAME} reserves only "
            f"{section.size}; enlarge the reservation"
        )
    # Pad with zeros to the full section so that a shorter table replacing a
    # longer one (re-running on the same file) leaves no stale bytes.
    padded = blob + bytes(section.size - len(blob))
    with open(elf, "r+b") as f:
        f.seek(section.offset)
        f.write(padded)
    return len(symbols), len(blob), section.size


def from_nm(nm_file: Path, out: Path) -> tuple[int, int]:
    try:
        text = nm_file.read_text(encoding="utf-8")
    except OSError as err:
        raise ToolError(f"cannot read {nm_file}: {err.strerror}") from None
    symbols = select_symbols(parse_nm(text))
    blob = build_blob(symbols)
    out.write_bytes(blob)
    return len(symbols), len(blob)


FAKE_NM = """\
ffffffff80000000 T __text_start
ffffffff80000000 0000000000000040 T _start
ffffffff80000040 0000000000000020 t kevlar::main::h0123456789abcdef
ffffffff80000060 0000000000000010 t .Ltmp0
ffffffff80000060 0000000000000010 t $x
ffffffff80000080 00000000000000a0 T <kevlar::Foo as core::fmt::Debug>::fmt
ffffffff80000080 00000000000000a0 t fmt_alias_with_longer_name
ffffffff80000200 0000000000000010 D some_data
ffffffff80000300 0000000000000008 W weak_fn
ffffffff80000400 t unsized_local
ffffffff80000500 R rodata_marker
"""

FAKE_EXPECTED = [
    (0xFFFFFFFF80000000, 0x40, "_start"),
    (0xFFFFFFFF80000040, 0x20, "kevlar::main"),
    (0xFFFFFFFF80000080, 0xA0, "<kevlar::Foo as core::fmt::Debug>::fmt"),
    (0xFFFFFFFF80000300, 0x08, "weak_fn"),
    (0xFFFFFFFF80000400, 0, "unsized_local"),
]


def _fake_elf(section_size: int) -> bytes:
    """A minimal ELF64 with a loaded `.ksyms` section, to test find_section
    and embed without a toolchain."""
    shstrtab = b"\0.ksyms\0.shstrtab\0"
    ksyms_offset = 0x1000
    shstrtab_offset = ksyms_offset + section_size
    shoff = (shstrtab_offset + len(shstrtab) + 7) & ~7
    phoff = ELF_HEADER.size
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ELF_HEADER.pack(ident, 2, 0x3E, 1, 0, phoff, shoff, 0,
                             ELF_HEADER.size, PROGRAM_HEADER.size, 1,
                             SECTION_HEADER.size, 3, 2)
    phdr = PROGRAM_HEADER.pack(PT_LOAD, 4, ksyms_offset, 0xFFFFFFFF80001000,
                               0x101000, section_size, section_size, 0x1000)
    sections = [
        SECTION_HEADER.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        SECTION_HEADER.pack(1, 1, SHF_ALLOC, 0xFFFFFFFF80001000, ksyms_offset,
                            section_size, 0, 0, 16, 0),
        SECTION_HEADER.pack(8, 3, 0, 0, shstrtab_offset, len(shstrtab), 0, 0, 1, 0),
    ]
    image = bytearray(shoff + len(sections) * SECTION_HEADER.size)
    image[0:len(header)] = header
    image[phoff:phoff + len(phdr)] = phdr
    image[ksyms_offset:ksyms_offset + section_size] = b"\xaa" * section_size  # "stale" bytes
    image[shstrtab_offset:shstrtab_offset + len(shstrtab)] = shstrtab
    image[shoff:] = b"".join(sections)
    return bytes(image)


def self_test() -> int:
    failures = []

    def check(condition: bool, what: str) -> None:
        if not condition:
            failures.append(what)

    # Writer -> reader round trip.
    selected = select_symbols(parse_nm(FAKE_NM))
    blob = build_blob(selected)
    entries = read_blob(blob)
    check(entries == FAKE_EXPECTED, f"round trip: got {entries}")
    check(lookup(entries, 0xFFFFFFFF80000085) == ("<kevlar::Foo as core::fmt::Debug>::fmt", 5),
          "lookup inside")
    check(lookup(entries, 0xFFFFFFFF80000060) is None, "lookup past a sized symbol")
    check(lookup(entries, 0xFFFFFFFF7FFFFFFF) is None, "lookup before the first symbol")
    check(lookup(entries, 0xFFFFFFFF80000450) == ("unsized_local", 0x50), "lookup in unsized")
    check(read_blob(build_blob([])) == [], "empty table")

    # Shared names are stored once.
    dup = build_blob([Symbol(1, 0, "same", "t"), Symbol(2, 0, "same", "t")])
    check(HEADER.unpack_from(dup, 0)[4] == 4, "duplicate names not shared")

    # nm lines: with and without size, type letters that look like hex digits.
    parsed = parse_nm("0000000000001000 b bss_sym\n0000000000002000 0000000000000010 T f g\n")
    check(parsed == [Symbol(0x1000, 0, "bss_sym", "b"), Symbol(0x2000, 0x10, "f g", "T")],
          f"nm parsing: got {parsed}")

    # ELF: embed into a synthetic image, then re-embed to check idempotence
    # and zero padding; a too-small section must fail without writing.
    with tempfile.TemporaryDirectory() as tmp:
        elf = Path(tmp) / "kernel.elf"
        elf.write_bytes(_fake_elf(4096))
        count, size, reserved = embed(elf, FAKE_NM)
        data = elf.read_bytes()
        section = find_section(data, SECTION_NAME)
        body = data[section.offset:section.offset + section.size]
        check((count, size, reserved) == (len(FAKE_EXPECTED), len(blob), 4096), "embed summary")
        check(body[:size] == blob and body[size:] == bytes(4096 - size), "embedded bytes")
        embed(elf, FAKE_NM)
        check(elf.read_bytes() == data, "re-embedding changed the file")

        small = _fake_elf(64)
        elf.write_bytes(small)
        try:
            embed(elf, FAKE_NM)
            check(False, "oversized blob was accepted")
        except ToolError:
            check(elf.read_bytes() == small, "failed embed modified the file")

        try:
            find_section(_fake_elf(64).replace(b".ksyms", b".other"), SECTION_NAME)
            check(False, "missing section was found")
        except ToolError:
            pass

    # The checked-in fixture must be what this writer produces from its input.
    fixture_nm, fixture_bin = FIXTURE_DIR / "fixture.nm", FIXTURE_DIR / "fixture.bin"
    if fixture_nm.exists() and fixture_bin.exists():
        expected = build_blob(select_symbols(parse_nm(fixture_nm.read_text(encoding="utf-8"))))
        check(fixture_bin.read_bytes() == expected,
              f"{fixture_bin} is stale; regenerate it with --from-nm {fixture_nm} --out {fixture_bin}")

    for failure in failures:
        print(f"embed-symbols: self-test FAILED: {failure}", file=sys.stderr)
    if failures:
        return 1
    print("embed-symbols: self-test passed")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="embed-symbols.py",
        description="Write the kernel symbol table into the .ksyms section of KERNEL_ELF, in place.")
    parser.add_argument("elf", nargs="?", metavar="KERNEL_ELF", type=Path)
    parser.add_argument("--from-nm", metavar="NM_OUTPUT_FILE", type=Path,
                        help="build a bare blob from saved `nm -n -S -C --defined-only` output")
    parser.add_argument("--out", metavar="BLOB", type=Path, help="where --from-nm writes the blob")
    parser.add_argument("--self-test", action="store_true", help="run built-in consistency checks")
    args = parser.parse_args(argv)

    modes = sum([args.elf is not None, args.from_nm is not None, args.self_test])
    if modes != 1:
        parser.error("give exactly one of KERNEL_ELF, --from-nm, --self-test")
    if (args.from_nm is None) != (args.out is None):
        parser.error("--from-nm and --out go together")

    try:
        if args.self_test:
            return self_test()
        if args.from_nm is not None:
            count, size = from_nm(args.from_nm, args.out)
            print(f"embed-symbols: {count} symbols, {size} bytes written to {args.out}")
            return 0
        count, size, reserved = embed(args.elf)
        print(f"embed-symbols: {count} symbols, {size} bytes of {reserved} reserved")
        return 0
    except ToolError as err:
        print(f"embed-symbols: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

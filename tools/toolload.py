"""Loads another tool of this folder as a module.

The tools' file names have hyphens (run-qemu.py, build-initramfs.py), so
`import` cannot name them. A module is registered in sys.modules before it
runs (dataclasses look their module up there), and every tool that loads
the same name gets the same module object."""

import importlib.util
import os
import sys

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))


def load(name: str, filename: str):
    """Returns the module `name` made from TOOLS_DIR/filename, loading it
    the first time."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(TOOLS_DIR, filename))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod

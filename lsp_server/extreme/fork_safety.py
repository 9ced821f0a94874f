"""Whether a pytest worker may start as a fork of reks's own process (``sandbox.fork_start``)
instead of a new interpreter, without any test seeing a difference.

A fork inherits every module reks imported: faithful only when none of them is a module
the project's tests would import from the project (reks imported ``attr`` and the project
is attrs: the tests would run the installed copy), when the interpreter runs with the
settings a new one would get (no ``-W``, ``-X``, ``-O``, isolated or safe-path mode, the
same ``PYTHON*`` variables but those the fork follows), and when no other thread runs (a
lock another thread holds stays held in the child forever), and when no import hook a new
interpreter lacks is installed (pytest's assertion rewriter). Anything else: a new process.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from lsp_server.extreme.pythonpath_option import PATH_EDIT, configured_folders
from lsp_server.project.files import STORE_DIR
from lsp_server.sandbox.fork_start import REBUILT_SETTINGS, STARTUP_SETTINGS, base_path

_MODULE_SUFFIXES = (".py", ".pyc", ".pyi", ".so", ".pyd")
_NOT_IMPORTED = {STORE_DIR, "__pycache__", "node_modules"}


def worker_can_fork(root: Path, env: Mapping[str, str], python: str) -> bool:
    """A worker over the project at ``root`` with environment ``env``, run by ``python``,
    may be a fork of this process."""
    found = shutil.which(python) or python
    if not hasattr(os, "fork") or os.path.abspath(found) != os.path.abspath(sys.executable):
        return False
    if threading.active_count() != 1 or base_path() is None or not _default_interpreter():
        return False
    if not _plain_import_system():
        return False
    settings = {k: v for k, v in env.items() if k.startswith("PYTHON")}
    names = set(settings) | set(STARTUP_SETTINGS)
    if any(settings.get(k) != STARTUP_SETTINGS.get(k) for k in names - REBUILT_SETTINGS):
        return False
    imported = {name for name in sys.modules if "." not in name}
    folders = [root, *(Path(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)]
    return not any(name in imported for name in _importable_names(folders))


# Finders and path hooks a new interpreter has: importlib's own, zipimport, and what
# site's .pth files install (setuptools' distutils shim, editable installs' finders).
_STARTUP_HOOK_MODULES = (
    "_frozen_importlib",
    "_frozen_importlib_external",
    "importlib._bootstrap",
    "importlib._bootstrap_external",
    "importlib.machinery",
    "zipimport",
    "_distutils_hack",
    "__editable__",
)


def _plain_import_system() -> bool:
    """No import hook a new interpreter would lack (pytest's assertion rewriter when reks
    runs inside a pytest session, an instrumenting import hook): the forked child would
    import the tests' modules through it."""
    for hook in (*sys.meta_path, *sys.path_hooks):
        module = getattr(hook, "__module__", None) or type(hook).__module__
        if not module.startswith(_STARTUP_HOOK_MODULES):
            return False
    return True


def _default_interpreter() -> bool:
    flags = sys.flags
    return not (
        flags.isolated
        or getattr(flags, "safe_path", False)  # Python 3.11 on
        or flags.ignore_environment
        or flags.no_site
        or flags.dev_mode
        or flags.optimize
        or sys.warnoptions
        or hasattr(sys, "gettotalrefcount")  # a debug build: other default warning filters
        or sys._xoptions
    )


def _importable_names(folders: list[Path]) -> Iterator[str]:
    """The top-level module names the tests could import from the first of ``folders``
    (the project) and from the others themselves (``PYTHONPATH``): every module file's and
    folder's name in a folder that can be on the import path."""
    root, *others = folders
    for folder in (*_import_path_candidates(root), *others):
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir():
                    if entry.name not in _NOT_IMPORTED and not entry.name.startswith("."):
                        yield entry.name
                elif entry.name.endswith(_MODULE_SUFFIXES):
                    yield entry.name.partition(".")[0]


# Where code may edit the import path (``pythonpath_option.PATH_EDIT``), every folder counts.
_PATH_EDIT = re.compile(PATH_EDIT.pattern.encode(), re.I)


def _import_path_candidates(root: Path) -> list[Path]:
    """The folders of the project pytest's import modes can put on ``sys.path``: the root
    (``python -m``'s folder, the rootdir), every folder without an ``__init__.py`` (the
    base folder of a test module or conftest in it), and, where the root is itself a
    package, the first folder above it that is not. A package's folder is never one: its
    modules are imported by their dotted names. The folders pytest's ``pythonpath``
    option names count too. When code or configuration may add a folder of its own
    choosing, every folder of the project."""
    configured = configured_folders(root)
    candidates, every_folder, edits_path = [root], [], configured is None
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _NOT_IMPORTED and not d.startswith(".")]
        here = Path(folder)
        every_folder.append(here)
        if "__init__.py" not in files and here != root:
            candidates.append(here)
        scanned = [f for f in files if f.endswith(".py")]  # configuration: ``configured``
        edits_path = edits_path or any(_edits_import_path(here / f) for f in scanned)
    if edits_path:
        return every_folder
    above = root
    while (above / "__init__.py").is_file() and above.parent != above:
        above = above.parent
        candidates.append(above)
    return [*candidates, *(folder for folder in configured or [] if folder.is_dir())]


def _edits_import_path(path: Path) -> bool:
    try:
        return _PATH_EDIT.search(path.read_bytes()) is not None
    except OSError:
        return True  # unreadable: it may

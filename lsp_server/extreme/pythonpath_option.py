"""The folders pytest's ``pythonpath`` option puts on the import path, read from the
project's configuration files (``fork_safety``).

Any mention of a path edit in a configuration file used to make every folder of the
project count for shadowing: a src layout with ``pythonpath = ["src"]`` (humanize) and a
package module named like one reks imported (``humanize/time.py``) then gave the worker a
new interpreter, which starts Python, pytest and reks again (~0.35 s of CPU of an analysis
of 1.3 s). The option names its folders, relative to the file's folder: those count, and
only them, when nothing else in the file mentions a path edit.
"""

from __future__ import annotations

import configparser
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lsp_server.project.config import toml_module

PATH_EDIT = re.compile(r"sys\.path|syspath|addsitedir|pythonpath|from\s+sys\s+import", re.I)
"""What can put a package's own folder on the import path: code that edits ``sys.path`` (or
imports ``path`` from ``sys``), ``site.addsitedir``, pytest's ``pythonpath`` option,
``monkeypatch.syspath_prepend``."""
CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_INI_SECTIONS = {"setup.cfg": "tool:pytest"}  # the others' pytest section is ``[pytest]``


def configured_folders(root: Path) -> list[Path] | None:
    """The folders the ``pythonpath`` options of the configuration files at ``root`` name
    (whether or not pytest reads that file); None when a file may edit the import path in
    another way, or cannot be read: every folder counts then."""
    folders: list[Path] = []
    for name in CONFIG_FILES:
        try:
            text = (root / name).read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            return None
        if PATH_EDIT.search(text) is None:
            continue
        named = _toml_option(text) if name == "pyproject.toml" else _ini_option(text, name)
        if named is None:
            return None
        folders += [root / entry for entry in named]
    return folders


def _toml_option(text: str) -> list[str] | None:
    """The ``pythonpath`` entries of ``[tool.pytest.ini_options]`` (or of pytest 9's
    ``[tool.pytest]``); None when anything else in the file mentions a path edit."""
    toml = toml_module()
    if toml is None:
        return None
    try:
        data = toml.loads(text)
    except ValueError:  # TOMLDecodeError
        return None
    tool = data.get("tool", {})
    pytest_table = tool.get("pytest", {}) if isinstance(tool, dict) else {}
    if not isinstance(pytest_table, dict):
        return None
    entries: list[str] = []
    for table in (pytest_table, pytest_table.get("ini_options")):
        if isinstance(table, dict) and "pythonpath" in table:
            named = _entries(table.pop("pythonpath"))
            if named is None:
                return None
            entries += named
    return None if any(PATH_EDIT.search(s) for s in _strings(data)) else entries


def _ini_option(text: str, name: str) -> list[str] | None:
    """The ``pythonpath`` entries of the file's pytest section; None when anything else in
    the file mentions a path edit."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    section = _INI_SECTIONS.get(name, "pytest")
    entries: list[str] | None = []
    if parser.has_option(section, "pythonpath"):
        entries = _entries(parser.get(section, "pythonpath"))
        parser.remove_option(section, "pythonpath")
    rest = [parser.defaults(), *(parser[s] for s in parser.sections())]
    mentioned = [*parser.sections(), *(f"{k} {v}" for kept in rest for k, v in kept.items())]
    return None if any(PATH_EDIT.search(line) for line in mentioned) else entries


def _entries(value: object) -> list[str] | None:
    """The folders of a TOML ``pythonpath`` value (a list, or a string pytest splits)."""
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError:  # an unclosed quote: pytest fails on it too
            return None
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def _strings(value: Any) -> Iterator[str]:
    """Every key and string value in parsed TOML data."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value

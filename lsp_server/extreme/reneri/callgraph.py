"""Nearest public callers of a private function, from jedi's static references."""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path

from lsp_server.project.files import is_test_path

from .model import Caller

MAX_DEPTH = 4
"""Callers further away than this are not worth suggesting."""


def is_private(path: str, qualname: str) -> bool:
    """Whether a name in its module is private: a part with a leading underscore, or a
    module whose name has one (dunder names such as ``__eq__`` are public)."""
    parts = [*Path(path).with_suffix("").parts, *qualname.split(".")]
    return any(
        part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
        for part in parts
    )


def _is_test(path: Path, root: Path) -> bool:
    """A test file of the project; references outside the project are never callers."""
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        return True
    return is_test_path(rel.as_posix())


def nearest_public_callers(
    root: Path, path: str, qualname: str, line: int, *, max_depth: int = MAX_DEPTH
) -> list[Caller]:
    """Public functions outside the tests that reach ``qualname`` through calls, nearest first.

    A breadth-first walk over jedi references: a private caller is walked further, a public
    one is a result. Test files are not callers.
    """
    import jedi  # heavy; only needed here

    project = jedi.Project(str(root))
    found: dict[str, Caller] = {}
    seen: set[tuple[str, int]] = set()
    queue: deque[tuple[Path, int, int]] = deque()
    start = Path(root, path)
    column = _name_column(start, line, qualname.rsplit(".", 1)[-1])
    if column is None:
        return []
    queue.append((start, line, 0))
    seen.add((str(start), line))
    while queue:
        file, def_line, depth = queue.popleft()
        if depth >= max_depth:
            continue
        name = _def_name(file, def_line)
        column = _name_column(file, def_line, name) if name else None
        if column is None:
            continue
        try:
            script = jedi.Script(path=str(file), project=project)
            references = script.get_references(def_line, column)
        except Exception:
            continue
        for reference in references:
            if reference.is_definition() or reference.module_path is None:
                continue
            ref_path = Path(reference.module_path)
            if _is_test(ref_path, root):
                continue
            parent = reference.parent()
            if parent is None or parent.type != "function" or parent.line is None:
                continue
            key = (str(ref_path), parent.line)
            if key in seen:
                continue
            seen.add(key)
            caller_qualname = _qualname(parent.full_name or parent.name, parent.module_name)
            try:
                relative = ref_path.resolve().relative_to(Path(root).resolve()).as_posix()
            except ValueError:
                continue  # outside the project: a library
            if is_private(relative, caller_qualname):
                queue.append((ref_path, parent.line, depth + 1))
            else:
                found.setdefault(
                    caller_qualname, Caller(caller_qualname, relative, parent.line, depth + 1)
                )
    return sorted(found.values(), key=lambda c: (c.distance, c.path, c.line))


def _qualname(full_name: str, module_name: str | None) -> str:
    if module_name and full_name.startswith(module_name + "."):
        return full_name[len(module_name) + 1 :]
    return full_name


def _def_name(file: Path, line: int) -> str | None:
    try:
        text = file.read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, IndexError):
        return None
    match = re.search(r"\bdef\s+(\w+)", text)
    return match.group(1) if match else None


def _name_column(file: Path, line: int, name: str) -> int | None:
    try:
        text = file.read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, IndexError):
        return None
    match = re.search(rf"\bdef\s+({re.escape(name)})\b", text)
    return match.start(1) if match else None

"""What a child process of E did to the test's temporary folders, recorded and redone.

A ``subprocess`` boundary replays ``git init`` without running git, so the ``.git`` folder
it made does not exist on replay; T (or the test itself) that then looks at it (``.git``
exists? touch ``.git/refs/tags/bad.txt``) ran on the capture's file system and not on the
replay's. So during capture, each call into such a boundary made by T is bracketed by a
listing of the test's temporary folder (``tmp_path``, once a path in it crossed the
boundary), and the folders and files the call created or changed and the ones it removed are
written into the call's event (``fs``), paths by role (``<tmp_path>/...``) and contents in
base64; on replay the answer redoes them. Outside that folder nothing is recorded: T that
reads a file E wrote elsewhere still sees the replay's file system, and a test that depends
on it fails or diverges, never passes wrongly.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 1 << 20
"""A bigger file written by E refuses the boundary (the transcript would carry it)."""

Listing = dict[str, tuple[int, int]]


def listing(root: str) -> Listing:
    """Every folder (size -1) and regular file below ``root``: (modification time, size).
    Sockets, pipes and links are left out (gpg's agent socket): not redone on replay."""
    found: Listing = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            found[os.path.join(folder, name)] = (0, -1)
        for name in files:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found[path] = (info.st_mtime_ns, info.st_size)
    return found


def changes(before: Listing, after: Listing, encode: Callable[[str], str]) -> list[list[str]]:
    """The effects between two listings, in an order that redoes them: folders first
    (shortest first), then files, then removals."""
    made = sorted((p for p, (_, size) in after.items() if size < 0 and p not in before), key=len)
    effects = [["dir", encode(p)] for p in made]
    for path, (mtime, size) in sorted(after.items()):
        if size >= 0 and before.get(path) != (mtime, size):
            if size > MAX_FILE_BYTES:
                raise ValueError(f"E wrote {path} ({size} bytes): too big for a transcript")
            data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
            effects.append(["file", encode(path), data])
    gone = sorted((p for p in before if p not in after), key=len)
    effects += [["gone", encode(p)] for p in gone]
    return effects


def redo(effects: list[list[str]], decode: Callable[[str], str]) -> None:
    """Redo recorded effects on this run's temporary folders."""
    for effect in effects:
        path = Path(decode(effect[1]))
        if effect[0] == "dir":
            path.mkdir(parents=True, exist_ok=True)
        elif effect[0] == "file":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(base64.b64decode(effect[2]))
        elif path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


class Watch:
    """Brackets one call of T into E (capture): ``note`` writes the call's effects."""

    def __init__(self, root: str, encode: Callable[[str], str]) -> None:
        self.root = root
        self.encode = encode
        self.before = listing(root)

    def note(self, event: dict[str, Any]) -> str | None:
        """Add the effects to ``event``; a refusal reason when they cannot be recorded."""
        try:
            effects = changes(self.before, listing(self.root), self.encode)
        except (OSError, ValueError) as exc:
            return f"a child process of E changed the temporary folders: {exc}"
        if effects:
            event["fs"] = effects
        return None


def watch_for(boundaries: list[Any]) -> Callable[[], Watch | None]:
    """For a recorder: makes a ``Watch`` per call of T when a boundary starts child
    processes (``subprocess``) and the test's temporary folder is known, else None."""
    from lsp_server.factoring.run_varying import TEMP_ROOT

    if not any(b.spec.split(".")[0] == "subprocess" for b in boundaries):
        return lambda: None

    def make() -> Watch | None:
        folder = TEMP_ROOT.current
        return Watch(folder, TEMP_ROOT.encode) if folder and os.path.isdir(folder) else None

    return make

"""Write a refactoring's edits to disk: all of them or none, even across a crash.

The apply runs in three steps. *Check*: every file to edit still holds the text the
refactoring was computed from (a file deleted or changed since aborts the apply), no file
to create or rename onto exists. *Stage*: each new content is written, in the file's own
encoding (PEP 263 coding line, BOM), to a temporary file beside its target, and each target's
current bytes are copied to a backup beside it; then the plan (backups, creations,
renames) goes to a journal. *Commit*: temporary files are renamed over their targets
(``os.replace`` is atomic per file), files and folders are created and renamed in order.

If anything fails, every step already taken is undone from the plan and the backups; if the
process dies meanwhile, the journal lets the next apply (or ``recover_interrupted_apply``)
undo it. No temporary file stays behind either way.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import tokenize
from dataclasses import asdict, dataclass, field

from lsp_server.project.files import is_python
from lsp_server.refactor.model import Edit, FileCreate, FileEdit, FileRename, RefactoringError

JOURNAL = "apply-journal.json"
_PREFIX = ".reks-"


@dataclass
class _Plan:
    """What the commit step does, so that it can be undone from any point."""

    replaced: list[tuple[str, str]] = field(default_factory=list)
    """(backup, target): the target's bytes before the apply are in the backup."""
    created: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    """(old, new) in the order they are done."""
    temporary: list[str] = field(default_factory=list)
    """Staged files and backups: removed at the end, whatever happened."""


def file_encoding(path: str, data: bytes) -> str:
    """The encoding a file's bytes are in: a Python file's PEP 263 coding line or BOM
    (``utf-8-sig`` for a BOM), UTF-8 otherwise."""
    if not is_python(path):
        return "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:  # an unknown coding name: rope could not have read it either
        return "utf-8"


def decode_file(path: str, data: bytes) -> str:
    """A file's text in its own encoding, without its BOM; bytes the encoding does not
    allow survive as surrogates (they are written back as they were)."""
    return data.decode(file_encoding(path, data), "surrogateescape").lstrip("\ufeff")


def _encode(path: str, text: str, encoding: str) -> bytes:
    try:
        return text.lstrip("\ufeff").encode(encoding, "surrogateescape")
    except UnicodeEncodeError as exc:
        raise RefactoringError(
            f"{path}: the new text cannot be written in the file's encoding ({encoding});"
            " nothing written"
        ) from exc


def _same_text(a: str, b: str) -> bool:
    return a.lstrip("\ufeff").replace("\r\n", "\n") == b.lstrip("\ufeff").replace("\r\n", "\n")


def _contents_first(edits: list[Edit]) -> list[Edit]:
    """Content edits at their pre-rename paths, then creations, then renames in order.

    rope may edit a module after moving it; writing it before the move is the same change
    and lets every content write be staged while all folders still exist.
    """
    renames: list[FileRename] = [e for e in edits if isinstance(e, FileRename)]
    contents: list[Edit] = []
    for index, edit in enumerate(edits):
        if not isinstance(edit, FileEdit):
            continue
        path = edit.path
        earlier = [e for e in edits[:index] if isinstance(e, FileRename)]
        for rename in reversed(earlier):
            if path == rename.new_path or path.startswith(rename.new_path + os.sep):
                path = rename.old_path + path[len(rename.new_path) :]
        contents.append(FileEdit(path, edit.old_text, edit.new_text))
    creates: list[Edit] = [e for e in edits if isinstance(e, FileCreate)]
    return [*contents, *creates, *renames]


def _check(edits: list[Edit]) -> dict[str, bytes]:
    """The current bytes of every file to edit; refuses when the disk is not what the
    refactoring was computed from."""
    current: dict[str, bytes] = {}
    for edit in edits:
        if isinstance(edit, FileEdit):
            try:
                with open(edit.path, "rb") as handle:
                    data = handle.read()
            except FileNotFoundError:
                raise RefactoringError(
                    f"{edit.path} was deleted since the refactoring was computed; nothing written"
                ) from None
            except OSError as exc:
                raise RefactoringError(f"{edit.path}: {exc}; nothing written") from exc
            if not _same_text(decode_file(edit.path, data), edit.old_text):
                raise RefactoringError(
                    f"{edit.path} changed since the refactoring was computed; nothing written"
                )
            current[edit.path] = data
        elif isinstance(edit, FileCreate) and not edit.is_folder and os.path.exists(edit.path):
            raise RefactoringError(f"{edit.path} already exists; nothing written")
        elif isinstance(edit, FileRename) and os.path.exists(edit.new_path):
            raise RefactoringError(f"{edit.new_path} already exists; nothing written")
    return current


def _temporary_beside(target: str, data: bytes, plan: _Plan, suffix: str) -> str:
    fd, temp = tempfile.mkstemp(prefix=_PREFIX, suffix=suffix, dir=os.path.dirname(target))
    plan.temporary.append(temp)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return temp


def _stage(edits: list[Edit], current: dict[str, bytes], plan: _Plan) -> dict[str, str]:
    """New contents and backups beside their targets; target -> staged file."""
    staged: dict[str, str] = {}
    for edit in edits:
        if not isinstance(edit, FileEdit):
            continue
        old = current[edit.path]
        new = _encode(edit.path, edit.new_text, file_encoding(edit.path, old))
        temp = _temporary_beside(edit.path, new, plan, ".tmp")
        os.chmod(temp, os.stat(edit.path).st_mode & 0o7777)
        backup = _temporary_beside(edit.path, old, plan, ".bak")
        plan.replaced.append((backup, edit.path))
        staged[edit.path] = temp
    return staged


def _plan_structure(edits: list[Edit], plan: _Plan) -> None:
    """The files to create, the renames and the folders they need, before any is done."""
    will_exist: set[str] = set()

    def need(folder: str) -> None:
        missing: list[str] = []
        while folder and not os.path.isdir(folder) and folder not in will_exist:
            missing.append(folder)
            folder = os.path.dirname(folder)
        for path in reversed(missing):
            plan.folders.append(path)
            will_exist.add(path)

    for edit in edits:
        if isinstance(edit, FileCreate):
            need(edit.path if edit.is_folder else os.path.dirname(edit.path))
            if not edit.is_folder:
                plan.created.append(edit.path)
        elif isinstance(edit, FileRename):
            need(os.path.dirname(edit.new_path))
            plan.renamed.append((edit.old_path, edit.new_path))


def _commit(edits: list[Edit], staged: dict[str, str], plan: _Plan) -> None:
    for folder in plan.folders:
        if not os.path.isdir(folder):
            os.mkdir(folder)
    for edit in edits:
        if isinstance(edit, FileEdit):
            os.replace(staged[edit.path], edit.path)
        elif isinstance(edit, FileCreate) and not edit.is_folder:
            # Written in place: the journal names it, so a crash mid-write removes it.
            with open(edit.path, "xb") as handle:
                handle.write(_encode(edit.path, edit.text, "utf-8"))
        elif isinstance(edit, FileRename):
            os.replace(edit.old_path, edit.new_path)


def _undo(plan: _Plan) -> list[str]:
    """Put every file back as it was; the files that could not be, if any."""
    failed: list[str] = []
    for old, new in reversed(plan.renamed):
        if os.path.exists(new) and not os.path.exists(old):
            try:
                os.replace(new, old)
            except OSError:
                failed.append(old)
    for path in reversed(plan.created):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass  # not created yet
        except OSError:
            failed.append(path)
    for backup, target in plan.replaced:
        if not os.path.exists(backup):
            continue  # the apply got past it: the backup was already removed
        try:
            with open(target, "rb") as handle, open(backup, "rb") as saved:
                unchanged = handle.read() == saved.read()
        except OSError:
            unchanged = False
        if not unchanged:
            try:
                os.replace(backup, target)
            except OSError:
                failed.append(target)
    for folder in reversed(plan.folders):
        with contextlib.suppress(OSError):
            os.rmdir(folder)
    return failed


def _remove_temporary(plan: _Plan) -> None:
    for temp in plan.temporary:
        with contextlib.suppress(OSError):
            os.remove(temp)


def _write_journal(journal: str, plan: _Plan) -> None:
    os.makedirs(os.path.dirname(journal), exist_ok=True)
    temp = journal + ".tmp"
    try:
        with open(temp, "w", encoding="utf-8") as handle:
            json.dump(asdict(plan), handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, journal)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temp)
        raise


def recover_interrupted_apply(journal_dir: str) -> list[str]:
    """Undo an apply that a dead process left half done (its journal is in
    ``journal_dir``); the files put back. Nothing to do without a journal."""
    journal = os.path.join(journal_dir, JOURNAL)
    try:
        with open(journal, encoding="utf-8") as handle:
            data = json.load(handle)
        plan = _Plan(
            replaced=[(b, t) for b, t in data["replaced"]],
            created=list(data["created"]),
            folders=list(data["folders"]),
            renamed=[(o, n) for o, n in data["renamed"]],
            temporary=list(data["temporary"]),
        )
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RefactoringError(f"cannot read the apply journal {journal}: {exc}") from exc
    restored = [t for b, t in plan.replaced if os.path.exists(b)]
    failed = _undo(plan)
    if failed:
        raise RefactoringError(f"could not put back {', '.join(failed)} (journal: {journal})")
    os.remove(journal)
    _remove_temporary(plan)
    return restored


def apply_edits(edits: list[Edit], journal_dir: str | None = None) -> None:
    """Apply ``edits`` to disk atomically; raises ``RefactoringError`` and changes nothing
    if a file changed on disk since the refactoring read it, or if any step fails.
    ``journal_dir`` (the project's ``.reks``) keeps the plan while files are replaced, so
    that a crash in between is undone by the next apply."""
    if journal_dir is not None:
        recover_interrupted_apply(journal_dir)
    journal = None if journal_dir is None else os.path.join(journal_dir, JOURNAL)
    # A project without reks' folder gets none: it exists only while the journal does.
    made_folder = journal_dir is not None and not os.path.isdir(journal_dir)
    try:
        _apply(_contents_first(edits), journal)
    finally:
        if made_folder:
            with contextlib.suppress(OSError):
                os.rmdir(str(journal_dir))


def _apply(edits: list[Edit], journal: str | None) -> None:
    plan = _Plan()
    try:
        current = _check(edits)
        staged = _stage(edits, current, plan)
        _plan_structure(edits, plan)
        if journal is not None:
            _write_journal(journal, plan)
        _commit(edits, staged, plan)
        if journal is not None:
            os.remove(journal)  # the commit point: from here on the apply stands
    except BaseException as exc:
        failed = _undo(plan)
        _remove_temporary(plan)
        if journal is not None and not failed:
            with contextlib.suppress(OSError):
                os.remove(journal)  # if it stays, the next apply undoes again: no harm
        if failed:
            raise RefactoringError(
                f"the apply failed ({exc}) and {', '.join(failed)} could not be put back"
            ) from exc
        if isinstance(exc, OSError):
            raise RefactoringError(f"{exc}; nothing written") from exc
        raise
    _remove_temporary(plan)

"""Engine adapters: one interface over rope (directly and through reks's own refactoring
engine) and jedi, so the oracles can compare them.

``Engine.perform(kind, files, location, args)`` writes ``files`` into a fresh temporary
project, performs one refactoring and returns an ``EngineOutcome``: the new files, a
refusal (the engine's precondition check said no, which is a legitimate answer), or a
crash (any other exception). Nothing outside the temporary project is touched.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import traceback
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Status = Literal["ok", "refused", "crashed", "unsupported"]


@dataclass(frozen=True)
class Location:
    """Where a refactoring is invoked: a file, an offset, and the end of a selection."""

    path: str
    offset: int
    end: int | None = None


@dataclass(frozen=True)
class EngineOutcome:
    status: Status
    files: dict[str, str] | None = field(default=None, hash=False)
    """Every file of the project after the refactoring (relative POSIX path -> text)."""
    message: str = ""
    needs_confirmation: int = 0
    """How many changes of ``files`` carry a confirmation annotation (reks's uncertain
    changes): such an edit is not applied silently, the user is asked first."""


class Engine(Protocol):
    name: str
    kinds: frozenset[str]

    def perform(
        self, kind: str, files: dict[str, str], location: Location, args: dict[str, Any]
    ) -> EngineOutcome: ...

    def close(self) -> None: ...


def _crash(exc: BaseException) -> EngineOutcome:
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" at {os.path.basename(last.filename)}:{last.lineno} in {last.name}"
    return EngineOutcome("crashed", None, f"{type(exc).__name__}: {exc}{where}")


def scratch_base() -> str | None:
    """A memory-backed folder for scratch projects when there is one: on a disk file system
    creating and removing a folder per check costs milliseconds, on tmpfs microseconds."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return None


class _Scratch:
    """Fresh project folders under one temporary base, removed after use."""

    def __init__(self, prefix: str) -> None:
        self.base = os.path.realpath(tempfile.mkdtemp(prefix=prefix, dir=scratch_base()))
        self._counter = itertools.count()

    def make(self, files: dict[str, str]) -> str:
        root = os.path.join(self.base, f"p{next(self._counter)}")
        for rel, text in files.items():
            path = os.path.join(root, *rel.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        os.makedirs(root, exist_ok=True)
        return root

    def drop(self, root: str) -> None:
        shutil.rmtree(root, ignore_errors=True)

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def _rel(root: str, path: str) -> str:
    return os.path.relpath(os.path.realpath(path), root).replace(os.sep, "/")


# --------------------------------------------------------------------------- rope, directly
class RopeEngine:
    """rope's refactorings called the way an editor plugin would call them."""

    name = "rope"
    kinds = frozenset(
        {"rename", "rename-module", "extract-method", "extract-variable", "inline", "move"}
    )

    def __init__(self) -> None:
        self._scratch = _Scratch("reks-astgen-rope-")

    def perform(
        self, kind: str, files: dict[str, str], location: Location, args: dict[str, Any]
    ) -> EngineOutcome:
        from rope.base import exceptions

        if kind not in self.kinds:
            return EngineOutcome("unsupported")
        root = self._scratch.make(files)
        project = None
        try:
            from rope.base.project import Project

            project = Project(
                root,
                ropefolder=None,
                save_objectdb=False,
                automatic_soa=False,
                perform_doa=False,
                validate_objectdb=False,
            )
            changes = self._changes(project, kind, location, args)
            return EngineOutcome("ok", _apply_rope_changes(files, changes))
        except exceptions.RopeError as exc:
            return EngineOutcome("refused", None, f"{type(exc).__name__}: {exc}")
        except Exception as exc:
            return _crash(exc)
        finally:
            if project is not None:
                project.close()
            self._scratch.drop(root)

    def _changes(self, project: Any, kind: str, location: Location, args: dict[str, Any]) -> Any:
        from rope.refactor.extract import ExtractMethod, ExtractVariable
        from rope.refactor.inline import create_inline
        from rope.refactor.move import create_move
        from rope.refactor.rename import Rename

        resource = project.get_resource(location.path)
        if kind == "rename":
            renamer = Rename(project, resource, location.offset)
            return renamer.get_changes(args["new_name"], in_hierarchy=bool(renamer.is_method()))
        if kind == "rename-module":
            if resource.name == "__init__.py":
                resource = resource.parent
            return Rename(project, resource, None).get_changes(args["new_name"])
        if kind == "extract-method":
            extractor = ExtractMethod(project, resource, location.offset, location.end)
            return extractor.get_changes(args["name"])
        if kind == "extract-variable":
            extractor = ExtractVariable(project, resource, location.offset, location.end)
            return extractor.get_changes(args["name"])
        if kind == "inline":
            return create_inline(project, resource, location.offset).get_changes()
        if kind == "move":
            mover = create_move(project, resource, location.offset)
            return mover.get_changes(project.get_resource(args["destination"]))
        raise ValueError(kind)

    def close(self) -> None:
        self._scratch.close()


def _apply_rope_changes(files: dict[str, str], changes: Any) -> dict[str, str]:
    """Replay a rope ChangeSet over the files in memory."""
    from rope.base.change import (
        ChangeContents,
        ChangeSet,
        CreateFile,
        MoveResource,
        RemoveResource,
    )

    out = dict(files)

    def walk(change: Any) -> None:
        if isinstance(change, ChangeSet):
            for child in change.changes:
                walk(child)
        elif isinstance(change, ChangeContents):
            out[change.resource.path] = change.new_contents
        elif isinstance(change, MoveResource):
            old, new = change.resource.path, change.new_resource.path
            for path in sorted(out):
                if path == old or path.startswith(old + "/"):
                    out[new + path[len(old) :]] = out.pop(path)
        elif isinstance(change, CreateFile):
            out.setdefault(change.resource.path, "")
        elif isinstance(change, RemoveResource):
            old = change.resource.path
            for path in sorted(out):
                if path == old or path.startswith(old + "/"):
                    del out[path]

    walk(changes)
    return out


# ------------------------------------------------------------- rope through reks's engine
class ReksEngine:
    """rope as reks applies it: ``lsp_server.refactor.engine.RefactorEngine`` (which adds
    name checks, hierarchy-wide renames with ``super()`` calls, unsure occurrences, ...)."""

    name = "reks"
    kinds = RopeEngine.kinds

    def __init__(self) -> None:
        from lsp_server.refactor.engine import RefactorEngine

        self._engine = RefactorEngine()
        self._scratch = _Scratch("reks-astgen-reks-")

    def perform(
        self, kind: str, files: dict[str, str], location: Location, args: dict[str, Any]
    ) -> EngineOutcome:
        from lsp_server.refactor.model import (
            FileCreate,
            FileEdit,
            FileRename,
            RefactoringError,
            RefactorRequest,
        )

        if kind not in self.kinds:
            return EngineOutcome("unsupported")
        root = self._scratch.make(files)
        try:
            action, request_args = kind, dict(args)
            if kind == "rename-module":
                action, request_args["module"] = "rename", True
            self._engine.add_root(root)
            path = os.path.join(root, *location.path.split("/"))
            request = RefactorRequest(action, path, location.offset, location.end, request_args)
            result = self._engine.compute(request)
            out = dict(files)
            for edit in result.edits:
                if isinstance(edit, FileEdit):
                    out[_rel(root, edit.path)] = edit.new_text
                elif isinstance(edit, FileRename):
                    old, new = _rel(root, edit.old_path), _rel(root, edit.new_path)
                    for rel in sorted(out):
                        if rel == old or rel.startswith(old + "/"):
                            out[new + rel[len(old) :]] = out.pop(rel)
                elif isinstance(edit, FileCreate) and not edit.is_folder:
                    out.setdefault(_rel(root, edit.path), edit.text)
            return EngineOutcome("ok", out, needs_confirmation=len(result.uncertain))
        except RefactoringError as exc:
            return EngineOutcome("refused", None, f"{type(exc).__name__}: {exc}")
        except Exception as exc:
            return _crash(exc)
        finally:
            self._engine.remove_root(root)
            self._scratch.drop(root)

    def close(self) -> None:
        self._engine.close()
        self._scratch.close()


# ---------------------------------------------------------------------------------- jedi
class JediEngine:
    """jedi's refactorings (rename, extract function/variable, inline)."""

    name = "jedi"
    kinds = frozenset({"rename", "extract-method", "extract-variable", "inline"})

    def __init__(self) -> None:
        self._scratch = _Scratch("reks-astgen-jedi-")
        self._done = 0

    def perform(
        self, kind: str, files: dict[str, str], location: Location, args: dict[str, Any]
    ) -> EngineOutcome:
        import jedi
        from jedi.api.exceptions import RefactoringError

        if kind not in self.kinds:
            return EngineOutcome("unsupported")
        root = self._scratch.make(files)
        try:
            code = files[location.path]
            path = os.path.join(root, *location.path.split("/"))
            script = jedi.Script(code, path=path, project=jedi.Project(root))
            line, column = _line_column(code, location.offset)
            if kind == "rename":
                refactoring = script.rename(line, column, new_name=args["new_name"])
            elif kind == "inline":
                refactoring = script.inline(line, column)
            else:
                assert location.end is not None
                until_line, until_column = _line_column(code, location.end)
                extract = (
                    script.extract_function if kind == "extract-method" else script.extract_variable
                )
                refactoring = extract(
                    line,
                    column,
                    new_name=args["name"],
                    until_line=until_line,
                    until_column=until_column,
                )
            out = dict(files)
            for changed_path, changed in refactoring.get_changed_files().items():
                out[_rel(root, str(changed_path))] = changed.get_new_code()
            return EngineOutcome("ok", out)
        except RefactoringError as exc:
            return EngineOutcome("refused", None, f"{type(exc).__name__}: {exc}")
        except Exception as exc:
            return _crash(exc)
        finally:
            self._scratch.drop(root)
            self._done += 1
            if self._done % 500 == 0:
                _clear_jedi_caches()

    def close(self) -> None:
        self._scratch.close()
        _clear_jedi_caches()


def _clear_jedi_caches() -> None:
    # Every check uses a fresh folder, so jedi's per-path caches only grow: drop them.
    import parso.cache

    parso.cache.parser_cache.clear()


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return line, column


ENGINES: dict[str, type] = {"reks": ReksEngine, "rope": RopeEngine, "jedi": JediEngine}


def make_engine(name: str) -> Engine:
    try:
        factory = ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r} (known: {', '.join(ENGINES)})") from None
    engine: Engine = factory()
    return engine

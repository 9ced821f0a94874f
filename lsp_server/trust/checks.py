"""Trust but verify: cheap checks after each refactoring before REKS trusts it.

REKS skips tests only because a refactoring engine is assumed to preserve behaviour.
Engines have bugs, so after each task (setting ``trustButVerify``, on by default) we check:

1. every Python file the task wrote still compiles;
2. no file gained an undefined name (pyflakes, through the engine's own
   ``lsp_server.refactor.edit_check.check_edit``);
3. a renamed or moved global is not one its module names in a string (``__all__``, or a
   module ``__getattr__``/``globals()`` lookup plus a string spelling the name, as
   deprecation shims do): rope renames code, not strings;
4. for a rename, jedi (an independent engine) computes the same edit;
5. after a move of a global, every ``from <module> import <name>`` in the project
   (aliased, relative, in a package ``__init__``) still finds the name in its module;
6. the task does not match a shape the engine-testing work found rope to get wrong
   (``lsp_server.trust.known_failures.matches``, when that module exists; for a move,
   with how the project's other modules import the moved global).

Any failed check makes the task a hand edit: its tests run. A full test run in CI remains
the safety net, as the paper says: these checks only catch the obvious failures.
"""

from __future__ import annotations

import ast
import io
import re
import shutil
import sys
import tempfile
import tokenize
from collections.abc import Iterator, Mapping
from pathlib import Path

from lsp_server.astgen.client_features import client_imports, lists_in_all
from lsp_server.project.files import python_files
from lsp_server.project.text import identifier_at, parse_python
from lsp_server.refactor.edit_check import check_edit
from lsp_server.refactor.model import FileEdit, RefactoringError
from lsp_server.refactor.semantics.move_checks import binds
from lsp_server.rts.provenance import Origin, Provenance

_RENAME = re.compile(r"rename `([^`]+)` -> `([^`]+)`")


def check_known_failures(
    root: str, provenance: Provenance, unsaved: Mapping[str, str] | None = None
) -> str | None:
    """Does the task have a shape the engine-testing work found the engine to get wrong?
    (``lsp_server.trust.known_failures.matches``, fed by ``reks engine-test
    --write-known-failures``; without that module or the task's target: no opinion.) For a
    move of a global, the project's files before the task tell how its clients import it."""
    target = provenance.target
    if target is None:
        return None
    source = provenance.files_before.get(target.path)
    if source is None:
        return None
    try:
        from lsp_server.trust.known_failures import matches
    except ImportError:
        return None
    files, kind = None, target.action
    if (
        target.action in ("rename", "rename-module")
        and provenance.files_after.get(target.path, source) is None
    ):
        kind = "rename-module"  # the module file itself went away: renamed
    if (kind, provenance.kind) in (("move", "move-global"), ("rename-module", "rename")):
        files = project_texts(Path(root), provenance, after=False, unsaved=unsaved)
    shape = matches(kind, source, target.offset, target.end, project_files=files, path=target.path)
    if shape is None:
        return None
    return (
        f"it has the shape of a known {shape.engine} failure of {shape.refactoring}"
        f" ({shape.oracle}: {shape.detail})"
    )


def _untouched_python_files(root: Path, provenance: Provenance) -> Iterator[tuple[str, str]]:
    """(root-relative path, text) of the project's Python files on disk that the task did
    not touch (their text is the same before and after it)."""
    for path in python_files(root):
        rel = path.relative_to(root).as_posix()
        if rel in provenance.files_before or rel in provenance.files_after:
            continue
        try:
            yield rel, path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue


def project_texts(
    root: Path, provenance: Provenance, after: bool, unsaved: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Root-relative path -> text of every Python file of the project, before the task or
    after it: the files the task touched from the provenance (the editor may not have saved
    them yet), the others from the editor's ``unsaved`` buffers (root-relative path ->
    text), else from disk (the task left them alone)."""
    touched = provenance.files_after if after else provenance.files_before
    texts = dict(_untouched_python_files(root, provenance))
    for rel, buffer in (unsaved or {}).items():
        if _python(rel) and rel not in provenance.files_before:
            texts[rel] = buffer
    for rel, text in touched.items():
        if text is not None and _python(rel):
            texts[rel] = text
    return texts


def check_move_imports(
    root: str, provenance: Provenance, unsaved: Mapping[str, str] | None = None
) -> str | None:
    """After a move of a global, every ``from <source module> import <name>`` of the
    project (aliased or relative too) must still find ``name`` in the source module: rope
    leaves some of them alone (aliased imports, relative imports, re-exports), and the
    import then fails."""
    target = provenance.target
    if target is None or provenance.kind != "move-global" or not _python(target.path):
        return None
    before = provenance.files_before.get(target.path)
    if before is None:
        return None
    name = identifier_at(before, target.offset)
    if not name:
        return None
    files = project_texts(Path(root), provenance, after=True, unsaved=unsaved)
    source_after = files.get(target.path)
    if source_after is None:
        return None  # the module is gone: check_undefined_names and friends judge that
    try:
        if binds(parse_python(source_after), name):
            return None
    except (SyntaxError, ValueError):
        return None  # check_compiles reports it
    for path, line in client_imports(files, target.path, name):
        return (
            f"{path}:{line} still imports `{name}` from {target.path}, which no longer defines it"
        )
    return None


def _python(path: str) -> bool:
    return path.endswith((".py", ".pyw"))


def check_compiles(provenance: Provenance) -> str | None:
    for path, text in sorted(provenance.files_after.items()):
        if text is None or not _python(path):
            continue
        before = provenance.files_before.get(path)
        try:
            compile(text, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            if before is not None and not _compiles(before, path):
                continue  # it did not compile before either: not the refactoring's doing
            return f"{path} does not compile after the refactoring: {exc}"
    return None


def _compiles(text: str, path: str) -> bool:
    try:
        compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def check_undefined_names(provenance: Provenance) -> str | None:
    for path, text in sorted(provenance.files_after.items()):
        if text is None or not _python(path):
            continue
        before = provenance.files_before.get(path)
        if before is None:
            # A file renamed or created: compare with the file it came from, if any.
            before = _renamed_from(provenance, path) or ""
        try:
            check_edit(FileEdit(path, before, text), path)
        except RefactoringError as exc:
            return str(exc)
    return None


def _renamed_from(provenance: Provenance, path: str) -> str | None:
    gone = [p for p, t in provenance.files_after.items() if t is None and p != path]
    if len(gone) == 1:
        return provenance.files_before.get(gone[0])
    return None


def _names(text: str, name: str) -> list[tuple[int, int]]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    return [t.start for t in tokens if t.type == tokenize.NAME and t.string == name]


def _rename_position(before: str, after: str, old: str, new: str) -> tuple[int, int] | None:
    """An occurrence of ``old`` in ``before`` that became ``new`` in ``after``: the first
    one on a line whose first ``new`` sits at the same column."""
    first_new: dict[int, int] = {}
    for line, col in _names(after, new):
        first_new.setdefault(line, col)
    seen: set[int] = set()
    for line, col in _names(before, old):
        if line in seen:
            continue
        seen.add(line)
        if first_new.get(line) == col:
            return line, col
    return None


def check_rename_with_jedi(
    root: str, provenance: Provenance, unsaved: Mapping[str, str] | None = None
) -> str | None:
    """jedi must compute the same texts for every file rope changed (and no other file).

    jedi reads other modules from disk, which already hold the refactored code, so the
    check runs in a scratch copy holding the *before* texts of the files that mention the
    old name (plus package ``__init__`` files to keep imports resolvable)."""
    match = _RENAME.fullmatch(provenance.description)
    if provenance.kind != "rename" or match is None:
        return None
    old, new = match.group(1), match.group(2)
    if any(t is None for t in provenance.files_after.values()):
        return None  # a module rename: jedi does not rename files the same way
    changed = {
        p: (b, provenance.files_after.get(p))
        for p, b in provenance.files_before.items()
        if b is not None and _python(p) and provenance.files_after.get(p) not in (None, b)
    }
    position = None
    for path, (before, after) in sorted(changed.items()):
        assert after is not None
        found = _rename_position(before, after, old, new)
        if found is not None:
            position = (path, *found)
            break
    if position is None:
        return None  # nothing to anchor jedi at (e.g. only strings changed): no opinion
    texts = _before_project(Path(root), provenance, old)
    jedi_after = _jedi_rename(Path(root), texts, position, new)
    if isinstance(jedi_after, str):
        return jedi_after
    rope_after = {p: a for p, (_, a) in changed.items()}
    differing = sorted(
        p
        for p in set(jedi_after) | set(rope_after)
        if jedi_after.get(p, texts.get(p)) != rope_after.get(p, texts.get(p))
    )
    if differing:
        return f"jedi renames `{old}` differently in {', '.join(differing[:3])}"
    return None


def _jedi_rename(
    root: Path, texts: dict[str, str], position: tuple[str, int, int], new: str
) -> dict[str, str] | str:
    """The texts jedi gives the project's files ``texts`` (root-relative path -> text) when
    renaming at ``position`` (path, 1-based line, column) to ``new``; a reason when jedi
    cannot compute the rename. Runs in a scratch copy: jedi reads modules from disk."""
    import jedi

    scratch = Path(tempfile.mkdtemp(prefix="reks-verify-"))
    try:
        for rel, text in texts.items():
            target = scratch / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        path, line, col = position
        # The running interpreter as jedi's environment: no subprocess to start.
        # A src layout: imports of the package resolve under src/ (jedi finds it from
        # project markers, which the scratch copy lacks).
        extra = [str(scratch / d) for d in ("src",) if (root / d).is_dir()]
        script = jedi.Script(
            texts[path],
            path=str(scratch / path),
            # The project's own code first: an installed copy of the same package (in
            # site-packages) must not be what jedi renames.
            project=jedi.Project(scratch, sys_path=[*extra, str(scratch), *sys.path]),
            environment=jedi.InterpreterEnvironment(),
        )
        try:
            refactoring = script.rename(line, col, new_name=new)
        except Exception as exc:  # jedi raises RefactoringError and internal errors alike
            return f"jedi cannot compute this rename ({type(exc).__name__}: {exc})"
        # Files outside the scratch copy are installed copies of the project (site-packages)
        # that jedi also found: not the project's files.
        return {
            Path(p).relative_to(scratch).as_posix(): f.get_new_code()
            for p, f in refactoring.get_changed_files().items()
            if Path(p).is_relative_to(scratch)
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _before_project(root: Path, provenance: Provenance, name: str) -> dict[str, str]:
    """Root-relative path -> text before the task, for every Python file mentioning
    ``name`` and the package ``__init__`` files above them."""
    texts = {
        rel: text
        for rel, text in _untouched_python_files(root, provenance)
        if name in text or rel.rsplit("/", 1)[-1] == "__init__.py"
    }
    for rel, before in provenance.files_before.items():
        if before is not None and _python(rel):
            texts[rel] = before
    return texts


def _looks_up_globals_by_name(text: str, name: str) -> str | None:
    """How a module may reach global ``name`` through a string, if it may: its ``__all__``
    lists the name, or it has a module-level ``__getattr__`` or calls
    ``globals()``/``vars()`` and a string constant in it spells the name (with or without
    leading underscores, as deprecation shims that look up ``f"_{name}"`` do)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return None
    # `__all__` spells exported names as strings, which rope does not rename:
    # `from module import *` then fails on the old name.
    if lists_in_all(tree, name):
        return f"`__all__` lists {name!r}"
    how = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (
            "__getattr__",
            "__dir__",
        ):
            how = f"a module-level `{node.name}`"
    for call in ast.walk(tree):
        if (
            how is None
            and isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id in ("globals", "vars")
            and not call.args
        ):
            how = f"`{call.func.id}()`"
    if how is None:
        return None
    spellings = {name, name.lstrip("_")}
    for constant in ast.walk(tree):
        if isinstance(constant, ast.Constant) and constant.value in spellings:
            return f"{how} and the string {constant.value!r}"
    return None


def check_dynamic_lookup(provenance: Provenance) -> str | None:
    """A renamed or moved global that its module may look up by a string: rope renames
    code, not strings, so the lookup would miss it."""
    for change in provenance.changes:
        if change.origin not in (Origin.REPLACED, Origin.MOVED) or change.old is None:
            continue
        if change.old.is_module or change.old.is_file or "." in change.old.name:
            continue  # a whole module, or a method: the module's globals keep their names
        text = provenance.files_before.get(change.old.path)
        how = None if text is None else _looks_up_globals_by_name(text, change.old.name)
        if how is not None:
            return f"{change.old.path} may look `{change.old.name}` up by name ({how})"
    return None


def verify(
    root: str, provenance: Provenance, unsaved: Mapping[str, str] | None = None
) -> str | None:
    """The first failed check's message, or None when the task can be trusted. A check
    that breaks is a failed check: the task then counts as a hand edit. ``unsaved``: the
    editor's buffers (root-relative path -> text), which the project-wide checks read
    instead of the disk."""
    try:
        return _verify(root, provenance, unsaved)
    except Exception as exc:
        return f"the checks could not run ({type(exc).__name__}: {exc})"


def _verify(root: str, provenance: Provenance, unsaved: Mapping[str, str] | None) -> str | None:
    for check in (check_compiles, check_undefined_names, check_dynamic_lookup):
        message = check(provenance)
        if message is not None:
            return message
    for project_check in (check_move_imports, check_rename_with_jedi, check_known_failures):
        message = project_check(root, provenance, unsaved)
        if message is not None:
            return message
    return None

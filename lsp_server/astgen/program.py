"""Generated programs, refactoring targets, and the marker templates generators write.

Generators write source with markers that say what the refactoring should do, so each
program carries its own expected result (the structural oracle's reference):

- ``«name»``  an occurrence of the renamed entity (becomes the new name in the expected text),
- ``«@name»`` the occurrence the rename is invoked on (also renamed),
- ``⟦`` ``⟧`` the selection of an extract refactoring,
- ``‸``       a cursor position (inline, move).

Markers never appear in generated program text: generated programs are plain ASCII.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MAIN = "main.py"
_OCCURRENCE = re.compile(r"«(@?)([A-Za-z_][A-Za-z_0-9.]*)»")
_MARKERS = ("⟦", "⟧", "‸")


@dataclass(frozen=True)
class Program:
    """A runnable multi-file program: relative POSIX paths -> text; ``main.py`` runs it."""

    files: tuple[tuple[str, str], ...]

    @property
    def file_map(self) -> dict[str, str]:
        return dict(self.files)

    @property
    def size(self) -> int:
        """What 'minimal' means when a failure group keeps one program: total characters."""
        return sum(len(text) for _, text in self.files)


@dataclass(frozen=True)
class Target:
    """One refactoring to perform on a program."""

    kind: str
    """``rename``, ``rename-module``, ``extract-method``, ``extract-variable``, ``inline``,
    ``move``."""
    path: str
    offset: int
    end: int | None = None
    args: tuple[tuple[str, Any], ...] = ()
    expected: tuple[tuple[str, str], ...] | None = None
    """The files a correct refactoring yields (up to layout), when the generator knows."""
    old_name: str | None = None
    """For a rename: the name before, so the inverse rename can restore it."""
    expect_refusal: bool = False
    """The program violates a precondition of this refactoring: a refusal is the right answer."""

    @property
    def arg_map(self) -> dict[str, Any]:
        return dict(self.args)


@dataclass(frozen=True)
class Case:
    """One program and one refactoring on it: the unit a check works on."""

    program: Program
    target: Target
    generator: str = ""
    notes: tuple[str, ...] = field(default=())


def strip_markers(text: str) -> str:
    text = _OCCURRENCE.sub(lambda m: m.group(2), text)
    for marker in _MARKERS:
        text = text.replace(marker, "")
    return text


def _expected_text(text: str, new_name: str) -> str:
    text = _OCCURRENCE.sub(lambda m: new_name, text)
    for marker in _MARKERS:
        text = text.replace(marker, "")
    return text


def _position(files: dict[str, str], find: str) -> tuple[str, int]:
    """(path, offset in the stripped text) of the first ``find`` marker."""
    for path, text in files.items():
        index = text.find(find)
        if index >= 0:
            return path, len(strip_markers(text[:index]))
    raise ValueError(f"no {find!r} marker in the template")


def rename_case(
    files: dict[str, str], new_name: str, generator: str = "", expect_refusal: bool = False
) -> Case:
    """A rename invoked at ``«@name»``; every ``«...»`` occurrence is expected renamed."""
    path, offset = _position(files, "«@")
    match = _OCCURRENCE.search(files[path][files[path].find("«@") :])
    assert match is not None
    old = match.group(2)
    program = Program(tuple((p, strip_markers(t)) for p, t in files.items()))
    expected = None
    if not expect_refusal:
        expected = tuple((p, _expected_text(t, new_name)) for p, t in files.items())
    target = Target(
        "rename",
        path,
        offset,
        args=(("new_name", new_name),),
        expected=expected,
        old_name=old,
        expect_refusal=expect_refusal,
    )
    return Case(program, target, generator)


def selection_case(
    files: dict[str, str],
    kind: str,
    args: tuple[tuple[str, Any], ...],
    generator: str = "",
    expect_refusal: bool = False,
) -> Case:
    """An extract refactoring on the ``⟦...⟧`` selection."""
    path, start = _position(files, "⟦")
    _, end = _position(files, "⟧")
    program = Program(tuple((p, strip_markers(t)) for p, t in files.items()))
    return Case(
        program, Target(kind, path, start, end, args, expect_refusal=expect_refusal), generator
    )


def cursor_case(
    files: dict[str, str],
    kind: str,
    args: tuple[tuple[str, Any], ...] = (),
    generator: str = "",
    expect_refusal: bool = False,
) -> Case:
    """A refactoring invoked at the ``‸`` cursor (inline, move)."""
    path, offset = _position(files, "‸")
    program = Program(tuple((p, strip_markers(t)) for p, t in files.items()))
    return Case(
        program, Target(kind, path, offset, None, args, expect_refusal=expect_refusal), generator
    )

"""Emission: the factored test, a plain pytest file beside the original test.

The factored test calls the original test function with the same fixtures (the original
module's own fixtures are imported into it, conftest fixtures apply as they do to the
original); the reks pytest plugin sees ``REKS_TRANSCRIPT`` and answers the boundary from the
transcript next to it. A person can read it, and run it with ``pytest`` like any other test.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.project.text import parse_python

_UNSAFE = re.compile(r"[^0-9A-Za-z_]")


@dataclass(frozen=True)
class FactoredFiles:
    test: Path
    transcript: Path

    def remove(self) -> None:
        for path in (self.test, self.transcript):
            path.unlink(missing_ok=True)


class EmitError(ValueError):
    """The original test has a shape emission does not handle (the reason says which)."""


def paths_for(original_file: Path, shape: dict[str, Any]) -> FactoredFiles:
    """Where the factored test of one original test goes: the same folder (same conftest
    files, same import root), ``test_factored__<module>__<test>.py``."""
    parts = [
        original_file.stem,
        shape.get("class") or "",
        shape["function"],
        shape.get("case") or "",
    ]
    stem = "__".join(_UNSAFE.sub("_", p) for p in ["test_factored", *parts] if p)
    folder = original_file.parent
    return FactoredFiles(folder / f"{stem}.py", folder / f"{stem}.transcript.json")


def module_fixtures(original_file: Path) -> list[str]:
    """The fixtures the original test module defines (``@pytest.fixture`` / ``@fixture``)."""
    tree = parse_python(original_file.read_text(encoding="utf-8"))
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            _is_fixture_decorator(d) for d in node.decorator_list
        ):
            names.append(node.name)
    return names


def _is_fixture_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr == "fixture"
    return isinstance(target, ast.Name) and target.id == "fixture"


def render(
    nodeid: str, shape: dict[str, Any], files: FactoredFiles, boundaries: list[str], calls: int
) -> str:
    """The text of the factored test."""
    module = shape["module"]
    if not module or not shape.get("function"):
        raise EmitError(f"{nodeid} is not a test function of a Python module")
    fixtures = module_fixtures(Path(shape["file"]))
    argnames = list(shape.get("argnames") or [])
    if shape.get("class"):
        argnames = [a for a in argnames if a != "self"]
        body = f"_original.{shape['class']}().{shape['function']}({', '.join(argnames)})"
    else:
        body = f"_original.{shape['function']}({', '.join(argnames)})"
    boundary = ", ".join(boundaries)
    options = " ".join(f"--boundary {b}" for b in boundaries)
    case = parametrize_decorator(shape)
    lines = [
        f'"""Factored test of {nodeid}, made by `reks factor`.',
        "",
        f"Boundary: {boundary}. The code under test runs for real; each of the {calls}",
        f"recorded interactions with the boundary is answered from {files.transcript.name}.",
        "A call that differs from the transcript raises ReplayDivergence naming the call: run",
        "the original test then. When the boundary's code changes this test is skipped as",
        f"stale; recapture it with `reks factor {nodeid} {options}`.",
        '"""',
        "",
        *(["import pytest", ""] if case else []),
        f"import {module} as _original  # the original test: its body runs unchanged",
    ]
    if fixtures:
        lines.append(f"from {module} import {', '.join(fixtures)}  # noqa: F401  (its fixtures)")
    marked = shape.get("marked") or []
    lines += [
        "",
        f'REKS_TRANSCRIPT = "{files.transcript.name}"',
        f'REKS_ORIGINAL = "{nodeid}"',
        *(
            ["pytestmark = _original.pytestmark  # the original module's marks"]
            if "module" in marked
            else []
        ),
        "",
        "",
        *case,
        f"def {factored_function(shape)}({', '.join(argnames)}):",
        f"    {body}",
        "",
        *_own_marks(shape, marked),
    ]
    return "\n".join(lines)


def _own_marks(shape: dict[str, Any], marked: list[str]) -> list[str]:
    """Lines giving the factored test the marks of the original test function and its class
    (``filterwarnings``, ``usefixtures``, ``xfail``: they change its outcome), read from the
    original at import, its parametrize mark left out."""
    owners = []
    if "class" in marked:
        owners.append(f"_original.{shape['class']}.pytestmark")
    elif "class (one)" in marked:
        owners.append(f"[_original.{shape['class']}.pytestmark]")
    if "function" in marked:
        owner = f"_original.{shape['class']}." if shape.get("class") else "_original."
        owners.append(f"{owner}{shape['function']}.pytestmark")
    if not owners:
        return []
    name = factored_function(shape)
    lines = [
        "",
        f"{name}.pytestmark = [  # the original test's own marks",
        f'    *getattr({name}, "pytestmark", []),',
    ]
    lines += [f'    *(m for m in {o} if m.name != "parametrize"),' for o in owners]
    return [*lines, "]", ""]


def parametrize_decorator(shape: dict[str, Any]) -> list[str]:
    """The decorator that gives the factored test the one case of a parametrized original
    (one parameter: its value is the case, not a 1-tuple of it, as pytest reads it)."""
    if not shape.get("parametrized"):
        return []
    params: dict[str, str | None] = shape.get("params") or {}
    unwritable = [name for name, text in params.items() if text is None]
    if unwritable:
        raise EmitError(
            f"the value of parameter {unwritable[0]!r} of case [{shape.get('case')}] has no"
            " literal spelling, so the factored test cannot name its case"
        )
    names = ", ".join(params)
    values = ", ".join(str(text) for text in params.values())
    case_value = values if len(params) == 1 else f"({values},)"
    indirect = f", indirect={shape['indirect']!r}" if shape.get("indirect") else ""
    case = shape.get("case") or ""
    return [f"@pytest.mark.parametrize({names!r}, [{case_value}], ids=[{case!r}]{indirect})"]


def factored_nodeid(test_rel: str, shape: dict[str, Any]) -> str:
    """The node id of the factored test emitted for ``shape`` in file ``test_rel``."""
    case = f"[{shape['case']}]" if shape.get("parametrized") and shape.get("case") else ""
    return f"{test_rel}::{factored_function(shape)}{case}"


def factored_function(shape: dict[str, Any]) -> str:
    prefix = f"{shape['class']}_" if shape.get("class") else ""
    name = f"{prefix}{shape['function']}_factored"
    return name if name.startswith("test") else f"test_{name}"

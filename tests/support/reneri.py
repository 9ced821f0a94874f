"""What the Reneri tests share: temporary projects, undetected transformations of them, and
real pytest runs."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

from lsp_server.extreme.model import Transformation, TransformationResult, Verdict


def write_project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def def_line(root: Path, path: str, qualname: str) -> int:
    """The line of the ``def`` of ``qualname`` in ``path``."""
    tree = ast.parse((root / path).read_text(encoding="utf-8"))
    parts = qualname.split(".")
    body = tree.body
    for part in parts:
        for node in body:
            named = isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            if named and node.name == part:
                if part == parts[-1]:
                    return node.lineno
                body = node.body
                break
        else:
            raise LookupError(qualname)
    raise LookupError(qualname)


def undetected(
    root: Path, path: str, qualname: str, body: str, tests: list[str]
) -> TransformationResult:
    transformation = Transformation(path, qualname, def_line(root, path, qualname), body)
    return TransformationResult(transformation, Verdict.UNDETECTED, tests)


def rewrite_body(root: Path, path: str, qualname: str, body: str) -> None:
    """Write the transformed function to disk (only ever in a temp copy)."""
    file = root / path
    source = file.read_text(encoding="utf-8")
    tree = ast.parse(source)
    line = def_line(root, path, qualname)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.lineno == line)
    lines = source.splitlines(keepends=True)
    first, last = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
    indent = " " * node.body[0].col_offset
    lines[first - 1 : last] = [indent + body + "\n"]
    file.write_text("".join(lines), encoding="utf-8")


def run_pytest(root: Path, *tests: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )

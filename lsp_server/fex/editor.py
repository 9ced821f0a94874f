"""What the editor needs: the classes a code lens "Generate field-exhaustive tests (scope N)"
goes on, and the generation it runs (with a Job for ``$/progress`` and cancellation)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from lsp_server.fex.model import INVARIANT_NAME
from lsp_server.fex.run import Request, generate_for_project, module_name, write_suite
from lsp_server.fex.suite import Suite
from lsp_server.jobs import Job
from lsp_server.project import Project
from lsp_server.project.text import parse_python

DEFAULT_SCOPE = 3


@dataclass(frozen=True)
class LensTarget:
    """A top-level class with an invariant; ``line`` and ``column`` (0-based) of its name."""

    name: str
    line: int
    column: int
    methods: tuple[str, ...] = field(default=())
    """Its public methods other than the invariant, ``post_*`` and ``fex_scope``."""


def classes_with_rep_ok(source: str, invariant: str = INVARIANT_NAME) -> list[LensTarget]:
    """The top-level classes of ``source`` that define ``invariant`` (none if it does not
    parse)."""
    try:
        tree = parse_python(source)
    except SyntaxError:
        return []
    found = []
    lines = source.splitlines()
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        defs = [d.name for d in node.body if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)]
        if invariant not in defs:
            continue
        methods = tuple(
            name
            for name in defs
            if not name.startswith("_")
            and name not in (invariant, "fex_scope")
            and not name.startswith("post_")
        )
        text = lines[node.lineno - 1]
        column = text.find(node.name, text.find("class"))
        found.append(LensTarget(node.name, node.lineno - 1, max(column, 0), methods))
    return found


def lens_title(scope: int) -> str:
    return f"Generate field-exhaustive tests (scope {scope})"


def default_scope(root: str | Path) -> int:
    value = Project.at(root).config.section("fex").get("scope", DEFAULT_SCOPE)
    return value if isinstance(value, int) and value > 0 else DEFAULT_SCOPE


def generate_tests(
    root: str | Path,
    path: str | Path,
    class_name: str,
    scope: int,
    job: Job | None = None,
    out: str | Path | None = None,
    python: str | None = None,
) -> tuple[Suite, Path]:
    """Generate the suite of ``class_name`` in ``path`` (methods under test: those of its
    lens target) and write it to ``out`` (default ``tests/test_<module>_fex.py``)."""
    project = Project.at(root, python)
    file = Path(path) if Path(path).is_absolute() else project.root / path
    source = file.read_text(encoding="utf-8")
    invariant = str(project.config.section("fex").get("invariant", INVARIANT_NAME))
    targets = {t.name: t for t in classes_with_rep_ok(source, invariant)}
    methods = targets[class_name].methods if class_name in targets else ()
    module = module_name(project.root, str(file.resolve()))
    suite = generate_for_project(
        project.root, Request(f"{module}:{class_name}", scope, methods=methods), job, python
    )
    if out is None:
        stem = module.rsplit(".", 1)[-1]
        out = project.root / "tests" / f"test_{stem}_{class_name.lower()}_fex.py"
    return suite, write_suite(suite, out)

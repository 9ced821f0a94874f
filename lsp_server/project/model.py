"""``Project``: one project root with what every feature asks of it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from lsp_server.project.config import ProjectConfig, load_config
from lsp_server.project.files import ProjectPaths, python_files
from lsp_server.project.interpreter import interpreter_problem, project_python


@dataclass(frozen=True)
class Project:
    """A project root; ``python`` is the interpreter its tests run in (None: found as
    ``project_python`` finds it)."""

    root: Path
    explicit_python: str | None = field(default=None, compare=False)

    @classmethod
    def at(cls, root: str | Path, python: str | None = None) -> Project:
        return cls(Path(root).resolve(), python or None)

    @cached_property
    def python(self) -> str:
        return project_python(self.root, self.explicit_python)

    @cached_property
    def config(self) -> ProjectConfig:
        return load_config(self.root)

    @cached_property
    def paths(self) -> ProjectPaths:
        return ProjectPaths(self.root)

    def python_files(self) -> Iterator[Path]:
        return python_files(self.root)

    def rel(self, path: str | Path) -> str | None:
        """The root-relative ``/`` path of ``path``, None outside project code."""
        return self.paths.rel(str(path))

    def interpreter_problem(self) -> str | None:
        """Why the project's interpreter cannot run reks' side of the work (None: it can)."""
        return interpreter_problem(self.python, self.root)

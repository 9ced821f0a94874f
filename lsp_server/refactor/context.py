"""What an operation module gets to compute one refactoring, and what it hands back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lsp_server.refactor.model import RefactoringError, RefactorRequest, SkippedFile, Uncertain
from lsp_server.refactor.provenance import Hints
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.refactor.workspace import RopeWorkspace
from lsp_server.rts.file_units import Unit
from lsp_server.rts.unit_names import MODULE
from lsp_server.rts.units import SourceError, source_units

if TYPE_CHECKING:  # the server process never imports rope (issue 15)
    from rope.base.change import ChangeSet
    from rope.base.resources import File, Resource


@dataclass
class Context:
    """One request on the worker thread: the workspace, the file, offsets as rope sees them."""

    workspace: RopeWorkspace
    request: RefactorRequest
    job: RopeJob
    text: str
    """Current text of the file (editor buffer or disk), as the request's offsets index it."""

    @property
    def project(self):
        return self.workspace.project

    @property
    def resource(self) -> Resource:
        return self.workspace.resource(self.request.path)

    def rope_offset(self, offset: int) -> int:
        """rope reads with universal newlines: a CRLF counts as one character there."""
        if offset < 0 or offset > len(self.text):
            raise RefactoringError(f"position {offset} is outside the file")
        return offset - self.text.count("\r\n", 0, offset)

    @property
    def offset(self) -> int:
        return self.rope_offset(self.request.offset)

    @property
    def end(self) -> int:
        if self.request.end is None:
            raise RefactoringError("this refactoring needs a selection")
        return self.rope_offset(self.request.end)

    def arg(self, name: str, default: object = None) -> object:
        return self.request.args.get(name, default)

    def str_arg(self, name: str, default: str | None = None) -> str:
        value = self.request.args.get(name, default)
        if not isinstance(value, str) or not value:
            raise RefactoringError(f"missing argument {name!r}")
        return value

    @property
    def rel(self) -> str:
        return self.workspace.relpath(self.request.path)

    def unit_at(self, offset: int) -> Unit:
        """The unit whose text holds ``offset`` (a character offset into ``self.text``)."""
        line = self.text.count("\n", 0, offset) + 1
        try:
            return source_units(self.rel, self.text).unit_at_line(line)
        except SourceError:
            return Unit(self.rel, MODULE)

    def scope_files(self, needle: str | None) -> tuple[list[File], list[SkippedFile]]:
        """Files to search (those rope can parse) and those skipped, with why."""
        good, bad = self.workspace.parsable_files(needle, self.job.check)
        own = self.workspace.relpath(self.request.path)
        for resource, reason in bad:
            if resource.path == own:
                raise RefactoringError(f"{own} cannot be parsed: {reason}")
        skipped = [SkippedFile(resource.real_path, reason) for resource, reason in bad]
        return good, skipped


@dataclass
class Planned:
    """rope's changes for a task plus what the task kind says about provenance."""

    changes: ChangeSet | None
    kind: str
    description: str
    hints: Hints = field(default_factory=Hints)
    skipped: list[SkippedFile] = field(default_factory=list)
    verify_names: frozenset[str] | None = None
    """Names the output check looks at (a rename); None: every undefined name (pyflakes)."""
    uncertain: list[Uncertain] = field(default_factory=list)
    """Changes in ``changes`` that need the user's confirmation."""
    jump_names: frozenset[str] = frozenset()
    """Extract method with jumps (``extract_jumps``): the names the call site unpacks the
    jump taken (and the returned value) to; they are not variables of the selection."""
    similar_checked: bool = False
    """Extract with ``similar``: the operation replaced only the occurrences whose data flow
    it checked itself (``extract_jumps``), not rope's."""

"""What the server's commands take: workspace roots and paths from a command's arguments,
and analysis options from the settings (shared by the features that run analyses)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.lsp.convert import uri_to_path

if TYPE_CHECKING:
    from lsp_server.extreme.analysis import Options
    from lsp_server.lsp.feature import Host
    from lsp_server.project import Project


def command_targets(host: Host, arguments: Sequence[Any]) -> list[tuple[Project, list[Path]]]:
    """(project, paths to work on) for a command's optional first argument, a folder or
    file URI or path; without it (or with null or ""), every workspace folder whole (empty
    paths). Any other argument is refused: it must never widen to the whole workspace."""
    if arguments and arguments[0] not in (None, ""):
        raw = arguments[0]
        if not isinstance(raw, str):
            raise JsonRpcException(
                f"the argument must be a folder or file (a URI or path), not {raw!r:.80}",
                code=types.ErrorCodes.InvalidParams,
            )
        path = uri_to_path(raw) if raw.startswith("file:") else raw
        if not Path(path).exists():
            raise JsonRpcException(
                f"no such folder or file: {raw:.200}", code=types.ErrorCodes.InvalidParams
            )
        folder = Path(path).is_dir()
        project = host.project_for(str(Path(path) / "x") if folder else path)
        return [(project, [] if Path(path).resolve() == project.root else [Path(path)])]
    return [(project, []) for project in host.projects()]


def analysis_options(host: Host, project: Project, paths: list[Path]) -> Options:
    """Options of the extreme analysis from the client's ``reks.extreme.*`` settings, run
    in the project's interpreter."""
    from lsp_server.extreme.analysis import Options  # the analysis is loaded when first run

    settings = host.settings.extreme
    return Options(
        paths=paths,
        jobs=max(0, settings.jobs),
        patterns=list(settings.skipPatterns),
        timeout_factor=max(1.0, float(settings.timeoutFactor)),
        timeout_base=max(0.0, settings.timeoutBase),
        incremental=settings.incremental,
        python=project.python,
        pytest_args=[str(arg) for arg in settings.pytestArgs],
        test_timeout=max(0.1, settings.testTimeout),
        collect_timeout=max(1.0, settings.collectTimeout),
        on_disk=settings.onDisk,
        verify=max(0, settings.verify),
        scheduler=settings.scheduler.strip() or None,
    )


async def require_interpreter(project: Project) -> None:
    """Refuse the command, saying why, when the project's interpreter cannot run reks."""
    problem = await asyncio.to_thread(project.interpreter_problem)
    if problem is not None:
        raise JsonRpcException(f"reks: {problem}", code=types.ErrorCodes.InternalError)

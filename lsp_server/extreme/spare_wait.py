"""How a worker of a spare pool (``warm``) waits for the test files to leave out
(``pool.scope``): before it collects, or before pytest starts; and what a worker's session
imported before it collected, which decides how a spare of its pool waits."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from lsp_server.extreme.library_imports import (
    PRELOAD_VARIABLE,
    import_libraries,
    session_libraries,
)
from lsp_server.extreme.pool import BEFORE_PYTEST_VARIABLE, SCOPE_VARIABLE
from lsp_server.extreme.real_paths import real_path
from lsp_server.project.files import imported_project_files
from lsp_server.sandbox import Channel, ChannelClosed


@dataclass
class SessionImports:
    """What a worker's session imported before it collected."""

    project: list[str] = field(default_factory=list)  # files (a conftest's imports)
    libraries: list[str] = field(default_factory=list)  # modules, when it imported files


def session_imports(root: str) -> SessionImports:
    """This process's ``SessionImports`` (``root``: the project's real path)."""
    project = imported_project_files(root, real_path)
    return SessionImports(project, session_libraries(root) if project else [])


def wait_for_scope(
    channel: Channel,
    root: str,
    libraries: list[str] | None = None,
    imported: list[str] | None = None,
) -> Any:
    """The scope message, once the pool sends it; ``libraries``: those imported while
    waiting before pytest; ``imported``: the project files imported (found already)."""
    os.environ.pop(SCOPE_VARIABLE, None)  # the tests' children start no waiting worker
    # What the session imported of the project before it waits (a conftest's imports): a
    # spare whose such files changed is not used.
    if imported is None:
        imported = imported_project_files(root, real_path)
    channel.send({"op": "waiting", "imported": imported, "libraries": libraries or []})
    try:
        return channel.receive()
    except ChannelClosed:
        os._exit(0)  # a spare closed unused: nothing started, nothing to end


def wait_before_pytest(channel: Channel, root: str) -> Any:
    """For a worker told to wait before pytest starts: the libraries of the session it
    stands in for imported, the scope message once the pool sends it; else None."""
    if not os.environ.pop(BEFORE_PYTEST_VARIABLE, ""):
        return None
    libraries = import_libraries(os.environ.pop(PRELOAD_VARIABLE, "").split(","))
    return wait_for_scope(channel, root, libraries)

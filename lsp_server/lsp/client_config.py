"""What editor clients show that the server owns, so that no client restates it.

``client_configuration(settings)`` is plain data for a client: the names refactorings give to
what they create (the effective ``defaultNames`` settings), which folders are not project
code (``lsp_server.project.files``, as workspace globs and as folder names), and the status
texts about tests skipped by refactorings. The LSP layer serves it as the result of the
``reks.clientConfiguration`` command and under ``capabilities.experimental.reks`` of the
``initialize`` result; a client falls back to its own behaviour when it is absent.

Status texts are templates: ``{name}`` is a count, ``{name:singular:plural}`` the count with
the noun that agrees with it (``{skipped:test:tests}`` -> ``1 test``, ``3 tests``).
``format_status`` is the reference implementation of that syntax.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from lsp_server.project.files import (
    EXCLUDED_DIR_SUFFIXES,
    EXCLUDED_DIRS,
    ROOT_ONLY_EXCLUDED_DIRS,
    exclusion_globs,
)
from lsp_server.settings import Settings

COMMAND = "reks.clientConfiguration"
"""The ``workspace/executeCommand`` command that returns ``client_configuration``."""
EXPERIMENTAL_KEY = "reks"
"""Where it stands in the ``initialize`` result: ``capabilities.experimental.reks``."""
VERSION = 1
"""Raised when a field changes meaning, so that a client can tell."""

STATUS_TEXTS: dict[str, Any] = {
    "text": "{skipped:test:tests} skipped by refactorings · {affected} affected",
    "tooltip": {
        "skipped": (
            "{skipped:test:tests} need not run: only refactorings touched what they depend on."
        ),
        "noneAffected": "No test is affected by your edits.",
        "affected": "{affected:test:tests} affected by edits: click to run them.",
        "more": "… and {more} more",
        "listed": 10,
    },
    "none": "no refactoring yet",
}
"""The status line / status bar item and its tooltip (``listed``: affected tests named in it)."""


def client_configuration(settings: Settings) -> dict[str, Any]:
    """Default names, exclusions and status texts for editor clients (JSON-ready)."""
    return {
        "version": VERSION,
        "defaultNames": dataclasses.asdict(settings.defaultNames),
        "exclusions": {
            "globs": exclusion_globs(),
            "dirs": sorted(EXCLUDED_DIRS),
            "rootOnlyDirs": sorted(ROOT_ONLY_EXCLUDED_DIRS),
            "dirSuffixes": list(EXCLUDED_DIR_SUFFIXES),
        },
        "status": copy.deepcopy(STATUS_TEXTS),
    }


_PLACEHOLDER = re.compile(r"\{(\w+)(?::([^:{}]*):([^:{}]*))?\}")


def format_status(template: str, counts: Mapping[str, int]) -> str:
    """Fill a status template with ``counts`` (see the module docstring for the syntax)."""

    def fill(match: re.Match[str]) -> str:
        count = counts[match.group(1)]
        if match.group(2) is None:
            return str(count)
        return f"{count} {match.group(2) if count == 1 else match.group(3)}"

    return _PLACEHOLDER.sub(fill, template)

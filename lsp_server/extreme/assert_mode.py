"""How the workers run the tests' asserts: plain, unless a test may read an assert's message.

A verdict needs only whether a test failed (``failure_note.short_failure``). pytest's
assertion rewriting, its default, was most of a first collection's time on toolz and
boltons, and a failing rewritten assert renders an explanation no verdict reads. A plain
assert fails and passes as a rewritten one does; only the message of its ``AssertionError``
differs. A test that catches one (``pytest.raises(AssertionError, match=...)``, ``except
AssertionError``) may read that message, and would fail on the original code with plain
asserts: when a test-side file (``is_test_path``: pytest rewrites test modules, conftests
and the helpers they register) names ``AssertionError`` other than to raise one, the
workers rewrite asserts as pytest does.
"""

from __future__ import annotations

import re
from pathlib import Path

from lsp_server.project.files import is_test_path, python_files

_RAISED = re.compile(rb"^\s*raise\s+AssertionError\b")


def assert_mode(root: Path) -> str:
    """The value of pytest's ``--assert`` for the workers over the project at ``root``."""
    for path in python_files(root):
        if not is_test_path(path.relative_to(root).as_posix()):
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"AssertionError" not in data:
            continue
        if any(b"AssertionError" in line and not _RAISED.match(line) for line in data.splitlines()):
            return "rewrite"
    return "plain"

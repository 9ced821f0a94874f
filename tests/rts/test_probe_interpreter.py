"""Library probes answer for the interpreter that runs the project's tests
(``rts.probe_process``). The language server computes the test status in its own process,
which may be another environment than the project's: its probes would tell what the
server's libraries bind, on the server's import path. There, a name taken from an installed
library stays unproved, so a new statement reading one selects the importers as any risky
statement does. Real pytest sessions; the project's interpreter is a ``.venv`` of its own
(a link to this one: another environment by its folder)."""

from __future__ import annotations

import sys

import pytest

from lsp_server.rts import test_status as statuses  # its function's name is a test's

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    write(pytester, "util.py", "import pluggy\n\n\ndef helper():\n    return 1\n")
    write(
        pytester,
        "test_util.py",
        "def test_helper():\n    import util\n\n    assert util.helper() == 1\n",
    )
    assert run(pytester) == {"test_helper"}
    edit(pytester, "util.py", "\n\ndef helper", "\nMARKER = pluggy.HookimplMarker\n\n\ndef helper")
    return pytester


def _affected(project: pytest.Pytester) -> set[str]:
    status = statuses.test_status(project.path)
    assert status is not None
    return {nodeid.split("::")[-1] for nodeid in status.affected}


def test_the_status_for_another_interpreter_proves_no_library_name(
    project: pytest.Pytester,
) -> None:
    bin_folder = project.path / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    (bin_folder / "python").symlink_to(sys.executable)
    assert _affected(project) == {"test_helper"}


def test_the_status_for_this_interpreter_proves_the_library_name(project: pytest.Pytester) -> None:
    assert _affected(project) == set()

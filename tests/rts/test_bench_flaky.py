"""``bench/rts_history._flaky`` runs a missed test once more at the commit and at its
parent. marshmallow's ``test_invalid_datetime_deserialization`` is parametrized by the
current time (``[20:17:49 2026-11-29]``): its id exists only in the run that made it, a
rerun by id found no such test, pytest exited 4 and the replay stopped. A test whose id
does not come back is not reproducible: flaky, not a stop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def rts_history(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    import rts_history

    return rts_history


def _commit(root: Path, message: str) -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
        return done.stdout.decode().strip()

    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message)
    return git("rev-parse", "HEAD")


def test_a_missed_test_whose_id_changes_every_run_is_flaky(
    rts_history: ModuleType, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    stable = "def test_stable():\n    assert True\n"
    (tmp_path / "test_stable.py").write_text(stable)
    parent = _commit(tmp_path, "parent")
    (tmp_path / "test_stamped.py").write_text(
        "import time\n\nimport pytest\n\n\n"
        "@pytest.mark.parametrize('stamp', [str(time.time_ns())])\n"
        "def test_stamped(stamp):\n    assert False\n"
    )
    (tmp_path / "test_stable.py").write_text(stable.replace("True", "False"))
    commit = _commit(tmp_path, "commit")
    project = rts_history.Project("stamped", tmp_path, Path(sys.executable), ["-p", "no:xdist"])
    after = rts_history._outcomes(project.pytest("-p", "no:cacheprovider"))
    (stamped,) = (t for t in after if t.startswith("test_stamped.py::"))
    missed = {stamped, "test_stable.py::test_stable"}
    before = {"test_stable.py::test_stable": True}
    flaky = rts_history._flaky(project, parent, commit, missed, before, after)
    # The stamped id never comes back; the stable test fails at the commit again and
    # passes at its parent again: a real miss, not flaky.
    assert flaky == {stamped}

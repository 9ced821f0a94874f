"""Values that differ between the run that captured and the run that replays only because
they are drawn fresh each run (a ``tempfile.mkdtemp`` folder, a ``time.time()`` reading):
matched by their role, and a real difference still diverges."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from lsp_server.factoring import values
from lsp_server.factoring.factor import factor_tests
from lsp_server.factoring.run_varying import (
    TEMP_NAME_MARK,
    TEMP_ROOT,
    watch_run_varying,
    watch_temp_names,
)
from tests.factoring.helpers import edit, make_project, outcomes

LOGIC = """
import os
import sqlite3
import time


def names(folder):
    conn = sqlite3.connect(os.path.join(folder, "x.db"))
    now = time.time()
    with conn:
        conn.execute("create table t (name text, stored real)")
        conn.executemany("insert into t values (?, ?)", [("b", now), ("a", now)])
    rows = conn.execute("select name, stored from t order by name").fetchall()
    conn.close()
    assert all(stored == now for _, stored in rows)
    return [row[0] for row in rows]
"""

TESTS = """
import shutil
import tempfile
import time

import pytest

from app import logic


@pytest.fixture
def folder():
    made = tempfile.mkdtemp(prefix="reks-run-varying-")
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_sqlite(folder):
    assert logic.names(folder) == ["a", "b"]
"""


@pytest.mark.slow  # three pytest runs (5-10 s); the roles' logic is tested fast below
def test_a_mkdtemp_folder_and_a_clock_reading_are_the_same_roles_on_replay(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS)
    nodeid = "tests/test_logic.py::test_sqlite"
    [result] = factor_tests(root, [nodeid], ["sqlite3"], keep_slower=True)
    assert result.status == "factored", result.reason
    factored = result.factored_test or ""
    data = json.loads((root / (result.transcript or "")).read_text(encoding="utf-8"))
    [connect] = [e for e in data["events"] if e.get("target") == "sqlite3.connect"]
    [path] = connect["args"]  # the folder's role, not the capture's random name
    assert path == f"{tempfile.gettempdir()}/reks-run-varying-<tempfile#1>/x.db"
    assert outcomes(root, factored)[factored]["outcome"] == "passed"
    edit(root, "app/logic.py", '"x.db"', '"y.db"')  # a real difference under the same folder
    after = outcomes(root, factored)[factored]
    assert after["outcome"] == "failed" and "y.db" in after["divergence"], after


def test_roles_number_fresh_names_in_order_and_answer_the_ones_e_drew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sequence: Any = tempfile._RandomNameSequence  # type: ignore[attr-defined]
    monkeypatch.setattr(sequence, "__next__", sequence.__next__)  # undone after the test
    monkeypatch.setattr(sequence, "_reks_watched", False, raising=False)
    monkeypatch.setattr(TEMP_ROOT, "drawn", set())
    watch_temp_names()
    first, second = tempfile.mkdtemp(), tempfile.mkdtemp()
    try:
        TEMP_ROOT.set(None)
        both = f"{second}:{first}"  # numbered by position in the value: runs agree
        assert TEMP_ROOT.encode(both).count(TEMP_NAME_MARK) == 2
        assert TEMP_ROOT.encode(second).endswith(f"{TEMP_NAME_MARK}1>")
        assert TEMP_ROOT.encode("/etc/hosts") == "/etc/hosts"  # not fresh: its own text
        TEMP_ROOT.set(None, captured=["capture1", "capture2", "capture3"])
        # E drew role 2 in the capture: a fresh name of this run, never the capture's folder,
        # and the role it stands for when T hands it back; role 1 before it is the capture's.
        answered = TEMP_ROOT.decode(f"/x/{TEMP_NAME_MARK}2>")
        assert answered.startswith("/x/") and "capture" not in answered
        assert TEMP_ROOT.encode(f"{answered}/y.db") == f"/x/{TEMP_NAME_MARK}2>/y.db"
        assert TEMP_ROOT.decode(f"/x/{TEMP_NAME_MARK}1>") == "/x/capture1"
        assert TEMP_ROOT.decode("<random#3>") == "capture3"  # not fresh: the capture's
        assert TEMP_ROOT.encode("key capture3") == "key <random#3>"
        assert TEMP_ROOT.encode(first).endswith(f"{TEMP_NAME_MARK}4>")  # this run's own next
    finally:
        TEMP_ROOT.set(None)
        os.rmdir(first)
        os.rmdir(second)


def test_clock_readings_of_the_test_are_roles_and_other_numbers_keep_their_value() -> None:
    before = time.time() - 5
    TEMP_ROOT.set(None, captured_readings=[1.5, 2.5, 3.5])
    try:
        now, now_ns = time.time(), time.time_ns()
        data = values.encode([now, now_ns, now, now + 60, before, 7.0], _refuse)
        assert data == [{"$clock": 1}, {"$clock": 2}, {"$clock": 1}, now + 60, before, 7.0]
        decoded = values.decode([{"$clock": 2}, {"$clock": 3}], _refuse)
        assert decoded == [now_ns, 3.5]  # the third: E read it in the capture
    finally:
        TEMP_ROOT.set(None)
        TEMP_ROOT.since = None  # no test window open in this process any more


def _refuse(value: Any) -> Any:
    raise AssertionError(value)


RANDOM_LOGIC = """
import os
import secrets
import socket
import uuid

from app import env


def run(folder):
    name = os.path.join(folder, f"db-{uuid.uuid4()}-{secrets.token_hex(8)}.txt")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))  # the OS picks the port: another one on replay
    port = server.getsockname()[1]
    try:
        got = env.fetch(f"http://127.0.0.1:{port}/x", name, port)
    finally:
        server.close()
    assert got == {"url": f"http://127.0.0.1:{port}/x", "name": name, "port": port}
    return got["port"] == port
"""

RANDOM_ENV = """
import time


def fetch(url, name, port):
    time.sleep(0.2)
    return {"url": url, "name": name, "port": port}
"""

RANDOM_TESTS = """
from app import logic


def test_run(tmp_path):
    assert logic.run(str(tmp_path))
"""


@pytest.mark.slow  # three pytest runs; the roles' logic is tested fast below
def test_random_names_and_an_os_assigned_port_are_the_same_roles_on_replay(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path, RANDOM_LOGIC, RANDOM_TESTS, env=RANDOM_ENV)
    [result] = factor_tests(root, ["tests/test_logic.py::test_run"], ["app.env"])
    assert result.status == "factored", result.reason
    factored = result.factored_test or ""
    data = json.loads((root / (result.transcript or "")).read_text(encoding="utf-8"))
    [fetch] = [e for e in data["events"] if e.get("target") == "app.env.fetch"]
    url, name, port = fetch["args"]
    assert url == "http://127.0.0.1:<port#1>/x" and port == {"$port": 1}, fetch
    assert name.endswith("-<random#2>-<random#3>.txt"), name
    edit(root, "app/logic.py", '/x"', '/y"')  # a real difference beside the port
    after = outcomes(root, factored)[factored]
    assert after["outcome"] == "failed" and "/y" in after["divergence"], after


def test_names_drawn_from_the_os_random_source_are_roles() -> None:
    import secrets
    import uuid

    watch_run_varying()
    first, token, url_token = uuid.uuid4(), secrets.token_hex(8), secrets.token_urlsafe(12)
    TEMP_ROOT.set(None)
    try:
        encoded = TEMP_ROOT.encode(f"job-{first}/{token}?t={url_token}")
        assert encoded == "job-<random#1>/<random#2>?t=<random#3>", encoded
        assert TEMP_ROOT.encode(str(uuid.UUID(int=first.int ^ 1))) != "<random#1>"
        replay_name = uuid.uuid4()
        TEMP_ROOT.set(None, captured=[str(first), token, url_token])
        assert TEMP_ROOT.encode(f"job-{replay_name}") == "job-<random#1>"
        assert TEMP_ROOT.decode("<random#1>|<random#2>") == f"{replay_name}|{token}"
    finally:
        TEMP_ROOT.set(None)


def test_a_port_the_os_assigned_is_a_role_in_text_and_as_a_number() -> None:
    import socket

    watch_run_varying()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        port = server.getsockname()[1]
        TEMP_ROOT.set(None)
        try:
            assert values.encode([f"127.0.0.1:{port}", port], _refuse) == [
                "127.0.0.1:<port#1>",
                {"$port": 1},
            ]
            assert values.encode(f"127.0.0.1:{port}1", _refuse) == f"127.0.0.1:{port}1"
            assert values.decode([{"$port": 1}, "h:<port#1>/"], _refuse) == [port, f"h:{port}/"]
        finally:
            TEMP_ROOT.set(None)
    assert values.encode(8080, _refuse) == 8080  # a port chosen by the code keeps its value


def test_a_random_name_split_into_folders_is_one_role() -> None:
    """diskcache names a value's file by ``os.urandom(16)`` in hex, cut into two folders and a
    name: ``98/0b/c3d0....val``."""
    watch_run_varying()
    hex_name = os.urandom(16).hex()
    TEMP_ROOT.set(None)
    try:
        path = f"/cache/{hex_name[:2]}/{hex_name[2:4]}/{hex_name[4:]}.val"
        assert TEMP_ROOT.encode(path) == "/cache/<random#1>.val"
        assert TEMP_ROOT.encode("/cache/00/11/2233445566778899.val").count("<random#") == 0
    finally:
        TEMP_ROOT.set(None)


def test_the_test_folder_inside_a_url_or_an_option_is_a_role() -> None:
    """setuptools-scm clones ``file://<tmp_path>/wd``: the folder is not at the start of
    the value, and the factored test's folder has another name than the capture's."""
    try:
        TEMP_ROOT.set("/tmp/pytest-of-me/pytest-7")
        url = "file:///tmp/pytest-of-me/pytest-7/test_clone0/wd"
        assert TEMP_ROOT.encode(url) == "file://<tmp_path>/wd"
        option = "--git-dir=/tmp/pytest-of-me/pytest-7/test_clone0/.git"
        assert TEMP_ROOT.encode(option) == "--git-dir=<tmp_path>/.git"
        assert TEMP_ROOT.encode("/tmp/pytest-of-me/pytest-8/x") == "/tmp/pytest-of-me/pytest-8/x"
        TEMP_ROOT.set("/tmp/pytest-of-me/pytest-9")
        TEMP_ROOT.encode("/tmp/pytest-of-me/pytest-9/test_clone_f0/wd")
        replayed = TEMP_ROOT.decode("file://<tmp_path>/wd")
        assert replayed == "file:///tmp/pytest-of-me/pytest-9/test_clone_f0/wd"
    finally:
        TEMP_ROOT.set(None)


def test_a_reading_e_took_in_the_capture_keeps_its_role_when_t_hands_it_back() -> None:
    """diskcache with ``time`` as E: the replay answers ``time.time()`` with the capture's
    reading (from before this run), and T writes it into an ``INSERT``: the same role."""
    earlier = time.time() - 3600
    TEMP_ROOT.set(None, captured_readings=[earlier - 1, earlier])
    try:
        [answered] = values.decode([{"$clock": 2}], _refuse)
        assert answered == earlier
        assert values.encode([answered, earlier + 1], _refuse) == [{"$clock": 2}, earlier + 1]
    finally:
        TEMP_ROOT.set(None)
        TEMP_ROOT.since = None


def test_a_copy_of_the_inherited_environment_is_written_as_its_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """setuptools-scm hands git ``dict(os.environ)`` minus a few names: the transcript held
    the whole environment of the capture (``PWD``, ``OLDPWD``, ``_``), so its factored tests
    diverged when run from another folder or shell. What the run inherited is a role; what
    the test itself changed is still compared."""
    monkeypatch.setenv("REKS_INHERITED", "capture shell")
    monkeypatch.delenv("REKS_SET_BY_TEST", raising=False)
    TEMP_ROOT.set(None)
    try:
        captured = values.encode(dict(os.environ, GIT_TERMINAL_PROMPT="0"), _refuse)
        assert "REKS_INHERITED" not in json.dumps(captured), captured
        monkeypatch.setenv("REKS_INHERITED", "another shell")
        monkeypatch.setenv("REKS_ONLY_IN_REPLAY", "1")
        TEMP_ROOT.set(None)
        replayed = dict(os.environ, GIT_TERMINAL_PROMPT="0")
        assert values.encode(replayed, _refuse) == captured
        assert values.decode(captured, _refuse) == replayed
        monkeypatch.setenv("REKS_SET_BY_TEST", "1")  # T's own change, after the test started
        assert values.encode(dict(os.environ, GIT_TERMINAL_PROMPT="0"), _refuse) != captured
        assert values.encode({"GIT_DIR": "x"}, _refuse) == {"GIT_DIR": "x"}  # not a copy
    finally:
        TEMP_ROOT.since = None


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_a_transcript_of_an_older_format_is_skipped_as_stale(tmp_path: Path, version: int) -> None:
    """Version 1 wrote a copy of the environment whole: replayed by this reks, every such
    call diverged. Version 2 had no ``made`` effect, version 3 no folder ``tempfile`` made in E.
    An older transcript is stale (recapture
    it), not a replay error."""
    root = make_project(
        tmp_path,
        "",
        'REKS_TRANSCRIPT = "old.transcript.json"\n\n\ndef test_factored():\n    pass\n',
    )
    old = {"format": "reks-factoring-transcript", "version": version, "test": "t", "events": []}
    (root / "tests" / "old.transcript.json").write_text(json.dumps(old), encoding="utf-8")
    [outcome] = outcomes(root, "tests/test_logic.py::test_factored").values()
    assert outcome["outcome"] == "skipped" and "recapture" in outcome["message"], outcome

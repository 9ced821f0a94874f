"""Worker processes: one channel, any interpreter, and a death is an error, not a hang."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lsp_server.sandbox import ChannelTimeout, ProcessDied, SandboxProcess, inherited_channel

ECHO = textwrap.dedent(
    """
    import os, sys, time
    from lsp_server.sandbox import inherited_channel
    channel = inherited_channel()
    print("echo started", flush=True)
    while True:
        try:
            message = channel.receive()
        except EOFError:
            break
        if message == "die":
            sys.stderr.write("dying on request\\n")
            sys.stderr.flush()
            os._exit(5)
        if message == "hang":
            time.sleep(60)
        channel.send({"echo": message, "env": os.environ.get("REKS_SANDBOX_CHANNEL")})
    """
)


def _echo(tmp_path: Path) -> SandboxProcess:
    return SandboxProcess(sys.executable, ["-c", ECHO], cwd=tmp_path)


def test_round_trip_and_big_payload(tmp_path: Path) -> None:
    with _echo(tmp_path) as process:
        process.send([1, "two"])
        # The channel's variable is gone once taken: programs the child starts never see it.
        assert process.receive(timeout=30) == {"echo": [1, "two"], "env": None}
        big = "y" * 10_000_000
        process.send(big)
        assert process.receive(timeout=60)["echo"] == big
        assert "echo started" in process.log_tail()


def test_death_is_reported_with_the_log(tmp_path: Path) -> None:
    with _echo(tmp_path) as process:
        process.send("die")
        with pytest.raises(ProcessDied) as caught:
            process.receive(timeout=30)
        assert "exited with status 5" in str(caught.value)
        assert "dying on request" in str(caught.value)


def test_hang_times_out_and_close_kills_it(tmp_path: Path) -> None:
    process = _echo(tmp_path)
    process.send("hang")
    with pytest.raises(ChannelTimeout):
        process.receive(timeout=0.3)
    started = time.monotonic()
    process.close(grace=0.2)
    assert not process.alive() and time.monotonic() - started < 10


def test_end_of_input_stops_the_process_and_nothing_leaks(tmp_path: Path) -> None:
    before = set(os.listdir("/proc/self/fd"))
    process = _echo(tmp_path)
    # The log has no name on disk from the start: nothing to leak even if reks is killed.
    assert os.fstat(process.log.fileno()).st_nlink == 0
    process.send("x")
    process.receive(timeout=30)
    process.close()
    assert process.process.returncode == 0
    assert set(os.listdir("/proc/self/fd")) <= before


def test_a_missing_module_is_a_death_not_a_hang(tmp_path: Path) -> None:
    with SandboxProcess(sys.executable, ["-m", "no_such_module_here"], cwd=tmp_path) as process:
        with pytest.raises(ProcessDied) as caught:
            process.receive(timeout=30)
        assert "No module named" in str(caught.value)


def test_outside_a_sandbox_there_is_no_channel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REKS_SANDBOX_CHANNEL", raising=False)
    assert inherited_channel() is None

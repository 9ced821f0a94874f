"""A Python process of our own (a test worker, a zygote), talked to over one channel.

The channel is a pair of pipes passed to the child as extra file descriptors (named by
``CHANNEL_ENV``), so its stdin, stdout and stderr stay free: stdout and stderr go to an
anonymous temporary file (deleted by the system even if reks is killed) whose tail explains
a death. A child that dies is a ``ProcessDied`` on the next ``receive``, never a hang.
The child finds its end with ``inherited_channel()``.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lsp_server.sandbox.fork_start import ForkedChild, start_forked
from lsp_server.sandbox.wire import Channel, ChannelClosed

CHANNEL_ENV = "REKS_SANDBOX_CHANNEL"
SIBLINGS_ENV = "REKS_SANDBOX_SIBLINGS"
"""Names the channels of the siblings a process forks itself (see ``inherited_siblings``)."""
PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])
"""The directory that makes ``lsp_server`` importable, whatever interpreter runs it."""


def _same_interpreter(python: str) -> bool:
    """``python`` is this interpreter, which imports ``lsp_server`` already. Only another
    one gets our package on its path: on this one that would also put a source checkout's
    ``*.egg-info`` on the path, and pytest then warns that ``lsp_server`` (imported by a
    worker before pytest starts) cannot be rewritten, an error under ``-W error``."""
    # Paths, not files: two virtualenvs link the same binary but differ in what they import.
    found = shutil.which(python) or python
    return os.path.abspath(found) == os.path.abspath(sys.executable)


class ProcessDied(ChannelClosed):
    """The process ended (or closed its channel) before answering."""


def inherited_channel() -> Channel | None:
    """In a process started by ``SandboxProcess``: its channel (None in any other)."""
    value = os.environ.pop(CHANNEL_ENV, None)
    if not value:
        return None
    read_fd, write_fd = (int(part) for part in value.split(","))
    for fd in (read_fd, write_fd):
        os.set_inheritable(fd, False)  # programs the tests start do not get it
    return Channel(read_fd, write_fd)


def inherited_siblings() -> list[Channel]:
    """In a process started by ``SandboxProcess(..., siblings=n)``: the ``n`` channels it
    hands to the copies of itself it forks (one each; see ``SiblingProcess``)."""
    value = os.environ.pop(SIBLINGS_ENV, "")
    channels: list[Channel] = []
    for pair in filter(None, value.split(";")):
        read_fd, write_fd = (int(part) for part in pair.split(","))
        for fd in (read_fd, write_fd):
            os.set_inheritable(fd, False)
        channels.append(Channel(read_fd, write_fd))
    return channels


class SandboxProcess:
    """``python args...`` in ``cwd``, with a channel; ``lsp_server`` importable in it,
    whatever interpreter ``python`` is."""

    def __init__(
        self,
        python: str,
        args: Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        quiet: bool = False,
        new_session: bool = False,
        siblings: int = 0,
        fork: bool = False,
    ) -> None:
        """``quiet``: the child's stdout goes nowhere (a test suite may print a lot), only
        stderr to the log. ``new_session``: ``kill`` reaches every process it started.
        ``siblings``: channels for that many copies the process forks of itself, each
        talked to through a ``SiblingProcess`` (``self.siblings``). ``fork``: ``python``
        is this interpreter and ``args`` run a module, started as a fork of this process
        (``fork_start``; the caller judged it faithful)."""
        self.new_session = new_session
        self.log = tempfile.TemporaryFile(prefix="reks-sandbox-")  # noqa: SIM115 - closed in close()
        to_child, from_child = os.pipe(), os.pipe()
        extra = [(os.pipe(), os.pipe()) for _ in range(siblings)]
        environment = dict(os.environ if env is None else env)
        environment[CHANNEL_ENV] = f"{to_child[0]},{from_child[1]}"
        environment.pop(SIBLINGS_ENV, None)
        if extra:
            environment[SIBLINGS_ENV] = ";".join(f"{i[0]},{o[1]}" for i, o in extra)
        their_ends = [to_child[0], from_child[1], *(fd for i, o in extra for fd in (i[0], o[1]))]
        if not _same_interpreter(python):
            paths = [PACKAGE_PARENT, *filter(None, [environment.get("PYTHONPATH")])]
            environment["PYTHONPATH"] = os.pathsep.join(paths)
        try:
            self.process = _start(
                [python, *args],
                cwd,
                environment,
                self.log.fileno(),
                quiet=quiet,
                new_session=new_session,
                fork=fork and _same_interpreter(python),
                their_ends=their_ends,
            )
        except BaseException:
            for fd in (to_child[1], from_child[0], *(fd for i, o in extra for fd in (o[0], i[1]))):
                os.close(fd)
            self.log.close()
            raise
        finally:  # the child's ends: it has its own copies now (or never started)
            for fd in their_ends:
                os.close(fd)
        self.channel = Channel(from_child[0], to_child[1])
        self.siblings = [SiblingProcess(self, Channel(o[0], i[1])) for i, o in extra]

    def __enter__(self) -> SandboxProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int:
        return self.process.pid

    def fileno(self) -> int:
        return self.channel.fileno()

    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, message: Any) -> None:
        try:
            self.channel.send(message)
        except (BrokenPipeError, OSError) as exc:
            raise ProcessDied(self._death(f"cannot send: {exc}")) from exc

    def receive(self, timeout: float | None = None) -> Any:
        """The next message; ``ChannelTimeout`` after ``timeout`` seconds, ``ProcessDied``
        (with the end of the log) when the process ended first."""
        try:
            return self.channel.receive(timeout)
        except ProcessDied:
            raise
        except ChannelClosed as exc:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=1)
            raise ProcessDied(self._death(str(exc))) from exc

    def _death(self, what: str) -> str:
        code = self.process.poll()
        if code is None:
            state = "is still running"
        elif code < 0:
            state = f"was killed by {signal.Signals(-code).name}"
        else:
            state = f"exited with status {code}"
        return f"the process {state} ({what})\n{self.log_tail()}".rstrip()

    def log_tail(self, size: int = 3000) -> str:
        """The end of what the process wrote to stdout/stderr (the offset is shared with the
        process, so it is read with ``pread``, which leaves it alone)."""
        try:
            length = os.fstat(self.log.fileno()).st_size
            data = os.pread(self.log.fileno(), size, max(0, length - size))
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace")

    def _signal(self, signum: int) -> None:
        with contextlib.suppress(OSError):
            if self.new_session:
                os.killpg(self.process.pid, signum)
            else:
                self.process.send_signal(signum)

    def kill(self) -> None:
        """SIGKILL now (the whole session when started in one)."""
        self._signal(signal.SIGKILL)
        self.process.wait()

    def terminate(self) -> None:
        """SIGTERM now (a worker's handler kills its children first); ``close`` after it
        waits, and kills a process that lingers."""
        if self.alive():
            self._signal(signal.SIGTERM)

    def close(self, grace: float = 2.0) -> None:
        """End of input (the process's cue to finish), then SIGTERM after ``grace``
        seconds and SIGKILL after 5 more; frees the pipes and the log."""
        self.channel.close_sending()
        for signum, wait in ((None, grace), (signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
            if signum is not None:
                self._signal(signum)
            try:
                _wait(self.process, wait)
                break
            except subprocess.TimeoutExpired:
                continue
        if self.new_session:  # what the process started dies with it
            with contextlib.suppress(OSError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.channel.close()
        self.log.close()


class SiblingProcess:
    """A copy that a ``SandboxProcess`` forked of itself, talked to over a channel of its
    own; it lives in that process's group and dies with it (``close`` of the first)."""

    def __init__(self, first: SandboxProcess, channel: Channel) -> None:
        self.first = first
        self.channel = channel
        self.pid = 0  # told by the sibling itself (its first message)

    def fileno(self) -> int:
        return self.channel.fileno()

    def alive(self) -> bool:
        if not self.pid:
            return self.first.alive()
        try:
            os.kill(self.pid, 0)
        except OSError:
            return False
        return True

    def send(self, message: Any) -> None:
        try:
            self.channel.send(message)
        except (BrokenPipeError, OSError) as exc:
            raise ProcessDied(f"a forked sibling cannot be sent to: {exc}") from exc

    def receive(self, timeout: float | None = None) -> Any:
        try:
            return self.channel.receive(timeout)
        except ProcessDied:
            raise
        except ChannelClosed as exc:
            raise ProcessDied(f"a forked sibling ended ({exc})\n{self.log_tail()}") from exc

    def log_tail(self, size: int = 3000) -> str:
        return self.first.log_tail(size)  # the siblings write to the first one's log

    def terminate(self) -> None:
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGTERM)

    def close(self, grace: float = 2.0) -> None:
        """End of input; the sibling exits on its own, or with the first process's group
        (whose ``close`` waits for its siblings, then kills the group)."""
        if grace <= 0:
            self.terminate()
        self.channel.close()


def _start(
    command: list[str],
    cwd: str | Path | None,
    env: dict[str, str],
    log: int,
    *,
    quiet: bool,
    new_session: bool,
    fork: bool,
    their_ends: list[int],
) -> subprocess.Popen[bytes] | ForkedChild:
    """The process of a ``SandboxProcess``: ``command`` (``python -m ...``) as a fork of
    this process (``fork_start``) when ``fork``, else as a new process."""
    if fork:
        return start_forked(
            command[1:],
            cwd=str(cwd or os.getcwd()),
            env=env,
            stdout=-1 if quiet else log,
            stderr=log,
            keep_fds=their_ends,
            new_session=new_session,
        )
    return subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL if quiet else log,
        stderr=log,
        pass_fds=their_ends,
        start_new_session=new_session,
    )


def _wait(process: subprocess.Popen[bytes] | ForkedChild, timeout: float | None) -> None:
    """``process.wait(timeout)``, woken by the process's end where the system can say
    (a pid file descriptor) instead of polling: ``Popen.wait`` sleeps up to 50 ms between
    polls, which every analysis waited for when it closed its workers."""
    if timeout is None or not hasattr(os, "pidfd_open"):
        process.wait(timeout)
        return
    try:
        handle = os.pidfd_open(process.pid)
    except OSError:  # reaped already, or not allowed here
        process.wait(timeout)
        return
    try:
        ended, _, _ = select.select([handle], [], [], timeout)
    finally:
        os.close(handle)
    if not ended:
        raise subprocess.TimeoutExpired(process.args, timeout)
    process.wait()

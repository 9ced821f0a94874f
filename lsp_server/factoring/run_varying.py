"""Values that differ between the run that captured a transcript and the run that replays it
only because each run draws them afresh: pytest's temporary directory, the names
``tempfile`` draws (``mkdtemp``, ``mkstemp``, ``NamedTemporaryFile``, ``TemporaryDirectory``),
wall-clock readings taken during the test, and ``PYTEST_CURRENT_TEST``.

Such a value is written by its role, not its text: a path below pytest's base temporary
directory as ``<tmp_path>/...`` (also inside a URL or an option); a name ``tempfile`` drew
in this run as ``<tempfile#N>``, N numbering the drawn names in the order they first cross
the boundary in this test (the capture's first fresh folder is the replay's first fresh
folder; a name E drew in the capture, ``tempfile`` being part of E, is answered on replay by
a name drawn afresh for its role); a float (``time.time()``) or nanosecond int
(``time.time_ns()``) that lies between the test's start and the moment it crosses is a
reading of the clock, ``{"$clock": N}`` (numbered the same way; ``now + 60`` is not one and
keeps its value). Names drawn from the OS's random source (``os.urandom``, so
``uuid.uuid4``, ``secrets.token_hex``/``token_urlsafe``: the hex, uuid and url-safe
spellings of each draw of 4 bytes or more) are ``<random#N>``; a port the OS assigned to a
socket bound to port 0 is ``<port#N>`` after a colon in text and ``{"$port": N}`` as a
number, in the same numbering. A dict that copies the environment the run inherited
(``dict(os.environ)`` handed to a child process, a few names changed) is written as its
changes, ``{"$environ": {set}, "removed": [names]}``, against the environment when the test
started: the shell, folder and ``PYTHONPATH`` a run inherits differ, what the test changed
is still compared.
Everything else in the
value is still compared as it is: ``<tempfile#1>/x.db`` is not ``<tempfile#1>/y.db``, and a
path that is not fresh in the replay keeps its text, so it differs from a role.
"""

from __future__ import annotations

import base64
import os
import random
import re
import socket
import tempfile
import time
import uuid
from collections.abc import Iterable
from typing import Any

TEMP_MARK = "<tmp_path>"
TEMP_NAME_MARK = "<tempfile#"
CURRENT_TEST_MARK = "<PYTEST_CURRENT_TEST>"
_CURRENT_TEST = "PYTEST_CURRENT_TEST"
_ROLE = re.compile(r"<(tempfile|random|port)#(\d+)>")
_SPLIT_HEX = re.compile(r"\b[0-9a-f]{2,}(?:/[0-9a-f]{2,})+")
_PORT = re.compile(r"(?<=:)(\d{1,5})(?!\d)")
_RANDOM_MIN_BYTES = 4
"""A shorter draw's spellings (under 8 characters) would match unrelated text."""
_OTHER_SEPARATOR = "\\" if os.sep == "\\" else "/"
_ENVIRONMENT_MIN = 8
_ENVIRONMENT_SHARE = 0.8
"""A dict holding this share of the inherited environment's names, with their values, is a
copy of it (setuptools-scm drops the ``GIT_*`` names from its copy)."""
_EPOCH_2001 = 1e9
"""Below this a float is no reading of the wall clock (a quick test before the window's)."""


class _TempRoot:
    """The run-varying values of this run and how they are written (see the module)."""

    def __init__(self) -> None:
        self.base: str | None = None
        self.current: str | None = None
        """The test's own folder below ``base`` in this run (seen first going out)."""
        self.drawn: set[str] = set()
        """Every name ``tempfile`` drew in this session (once ``watch_temp_names`` ran)."""
        self.answered: dict[str, str] = {}
        """The names the replay answered for E's fresh names in this test (``decode``), with
        their kinds (``tempfile``, ``random``, ``port``)."""
        self.random_names: set[str] = set()
        """The spellings of every draw from the OS's random source (``watch_run_varying``)."""
        self.ports: set[int] = set()
        """Every port the OS assigned to a socket bound to port 0 in this session."""
        self.named: list[str] = []
        """The drawn names this test's values held, in the order they first did."""
        self.captured: list[str] = []
        """The capture's names for the replay's roles it has not met (E drew them)."""
        self.since: float | None = None
        """When the test started: clock readings after it are roles."""
        self.readings: list[float] = []
        self._reading_roles: dict[float, int] = {}
        self._name_roles: dict[str, int] = {}
        """Role numbers by reading and by name (a diskcache test reads the clock on each of
        its thousand writes: a list's ``index`` made that quadratic)."""
        self.captured_readings: list[float] = []
        self.inherited: dict[str, str] = {}
        """The process environment when the test started (what the run inherited)."""

    def set(
        self,
        base: str | None,
        captured: list[str] | None = None,
        captured_readings: list[float] | None = None,
    ) -> None:
        """Start a test: pytest's base temporary directory, and (replay) the capture's names
        and clock readings."""
        self.base = base.rstrip("/\\") + "/" if base else None
        self.current = None
        self.named = []
        self.answered = {}
        self.captured = list(captured or [])
        self.since = time.time()
        self.readings = []
        self._reading_roles = {}
        self._name_roles = {}
        self.captured_readings = list(captured_readings or [])
        self.inherited = dict(os.environ)

    def environment_changes(self, value: dict[str, Any]) -> tuple[dict[str, Any], list[str]] | None:
        """``value`` as changes to the inherited environment (names set, names removed) if it
        is a copy of it (``dict(os.environ)`` with a few changes), else None."""
        inherited = self.inherited
        least = max(_ENVIRONMENT_MIN, _ENVIRONMENT_SHARE * len(inherited))
        if len(value) < least:  # every dict of str keys crossing the boundary comes here
            return None
        try:  # a set operation in C: the names kept with their values
            kept = len(inherited.items() & value.items())
        except TypeError:  # an unhashable value: no environment
            return None
        if kept < least:
            return None
        changed = {k: v for k, v in sorted(value.items()) if inherited.get(k) != v}
        return changed, sorted(k for k in inherited if k not in value)

    def environment(self, changed: dict[str, Any], removed: list[str]) -> dict[str, Any]:
        """This run's inherited environment with the recorded changes made."""
        value = {k: v for k, v in self.inherited.items() if k not in removed}
        value.update(changed)
        return value

    def clock_role(self, value: float) -> int | None:
        """The role number of ``value`` if it is a wall-clock reading taken during the test
        (seconds as a float, or nanoseconds as an int), else None."""
        since = self.since
        if since is None or value < _EPOCH_2001:
            return None
        known = self._reading_roles.get(value)
        if known is not None:  # also a reading E took in the capture, answered on replay
            return known
        if type(value) is int:
            if not since * 1e9 <= value <= time.time_ns():
                return None
        elif not since <= value <= time.time():
            return None
        role = self._reading_roles.get(value)
        if role is None:
            self.readings.append(value)
            role = self._reading_roles[value] = len(self.readings)
        return role

    def clock_value(self, role: int) -> float:
        """The reading with role number ``role``: this run's, else the capture's (E took it)."""
        if role <= len(self.readings):
            return self.readings[role - 1]
        value = self.captured_readings[role - 1]
        self._reading_roles.setdefault(value, role)  # T may hand it back to E
        return value

    def encode(self, text: str) -> str:
        if self.answered:  # first: an answered name keeps the kind and role it was answered for
            text = self._mark_answered(text)
        if self.drawn and ("/" in text or _OTHER_SEPARATOR in text):
            text = self._mark_names(text, self.drawn, "tempfile")
        if self.random_names and len(text) >= 2 * _RANDOM_MIN_BYTES:
            text = self._mark_names(text, self.random_names, "random")
            if "/" in text:  # diskcache's ``98/0b/c3d0....val``: a hex draw cut into folders
                text = _SPLIT_HEX.sub(self._split_hex_mark, text)
        if self.ports and ":" in text:
            text = _PORT.sub(self._port_mark, text)
        base = self.base
        if base is None or base not in text:
            # It names the test (differs when factored) and ends with the phase, ``(call)``:
            # the cheap test first, as every string crossing the boundary comes here.
            if text[-1:] == ")" and text == os.environ.get(_CURRENT_TEST):
                return CURRENT_TEST_MARK
            return text
        if not text.startswith(base):  # inside a URL or an option: ``file://``, ``--x=``
            return re.sub(re.escape(base) + r"[^/\s'\"]*", self._test_folder_mark, text)
        folder, sep, rest = text[len(base) :].partition("/")
        if self.current is None:
            self.current = base + folder
        return TEMP_MARK + sep + rest

    def _test_folder_mark(self, match: re.Match[str]) -> str:
        if self.current is None:
            self.current = match.group(0)
        return TEMP_MARK

    def _mark_names(self, text: str, drawn: Iterable[str], kind: str) -> str:
        found = [name for name in drawn if name in text]
        for name in sorted(found, key=text.find):  # numbered by position: runs agree
            text = text.replace(name, f"<{kind}#{self.role(name)}>")
        return text

    def role(self, name: str) -> int:
        """The role number of a fresh name of this run (numbered as they first cross)."""
        role = self._name_roles.get(name)
        if role is None:
            self.named.append(name)
            role = self._name_roles[name] = len(self.named)
        return role

    def _split_hex_mark(self, match: re.Match[str]) -> str:
        cut = match.group(0)
        return f"<random#{self.role(cut)}>" if cut.replace("/", "") in self.random_names else cut

    def _port_mark(self, match: re.Match[str]) -> str:
        port = int(match.group(1))
        return f"<port#{self.role(str(port))}>" if port in self.ports else match.group(1)

    def port_role(self, value: int) -> int | None:
        """The role number of ``value`` if it is a port the OS assigned in this run."""
        return self.role(str(value)) if value in self.ports else None

    def port_value(self, role: int) -> int:
        port = int(self._name_of_role(role))
        self.ports.add(port)  # T may hand it back to E
        return port

    def decode(self, text: str) -> str:
        if text == CURRENT_TEST_MARK:
            return os.environ.get(_CURRENT_TEST, text)
        if "#" in text:
            text = _ROLE.sub(lambda match: self._name_of_role(int(match.group(2)), match), text)
        if self.current is None or TEMP_MARK not in text:
            return text
        return text.replace(TEMP_MARK, self.current)

    def _name_of_role(self, role: int, match: re.Match[str] | None = None) -> str:
        """This run's name with that role number, else one for a name E drew in the capture:
        a ``tempfile`` name is drawn afresh (a folder E made is made again under it, apart
        from the capture's), another is the capture's; either keeps its role when T hands it
        back to E."""
        index = role - 1
        if index < len(self.named):
            return self.named[index]
        if index >= len(self.captured):
            return match.group(0) if match is not None else str(role)
        kind = match.group(1) if match is not None else "port"
        while len(self.named) < index:  # roles E drew before this one, in the capture's order
            self.role(self.captured[len(self.named)])
        fresh = kind == "tempfile"
        return self._answered(_fresh_temp_name() if fresh else self.captured[index], kind)

    def _answered(self, name: str, kind: str) -> str:
        """A name the replay answered for E: this run's name of the next role."""
        self.answered[name] = kind
        self.role(name)
        return name

    def _mark_answered(self, text: str) -> str:
        for name, kind in self.answered.items():
            if name in text:
                text = text.replace(name, f"<{kind}#{self._name_roles[name]}>")
        return text


TEMP_ROOT = _TempRoot()


def _fresh_temp_name() -> str:
    """A name drawn now as ``tempfile`` draws its names (noted in ``drawn``)."""
    name: str = next(tempfile._get_candidate_names())  # type: ignore[attr-defined]
    TEMP_ROOT.drawn.add(name)
    return name


def watch_temp_names() -> None:
    """Note every name ``tempfile`` draws from now on in ``TEMP_ROOT.drawn`` (idempotent).
    Its one name generator is where ``mkdtemp``, ``mkstemp`` and the temporary file classes
    get their random names."""
    sequence: Any = getattr(tempfile, "_RandomNameSequence", None)
    if sequence is None or getattr(sequence, "_reks_watched", False):
        return
    draw = sequence.__next__

    def drawn_and_noted(self: Any) -> str:
        name: str = draw(self)
        TEMP_ROOT.drawn.add(name)
        return name

    sequence.__next__ = drawn_and_noted
    sequence._reks_watched = True


def watch_run_varying() -> None:
    """Note every fresh name this process draws from now on (idempotent): ``tempfile``'s,
    the OS random source's, and the ports the OS assigns."""
    watch_temp_names()
    if getattr(os.urandom, "_reks_watched", False):
        return
    draw = os.urandom

    def urandom(size: int) -> bytes:
        data = draw(size)
        if size >= _RANDOM_MIN_BYTES:
            TEMP_ROOT.random_names.update(_spellings(data))
        return data

    urandom._reks_watched = True  # type: ignore[attr-defined]
    os.urandom = urandom
    random._urandom = urandom  # type: ignore[attr-defined]  # SystemRandom, so ``secrets``
    bind = socket.socket.bind

    def bind_and_note(self: socket.socket, address: Any) -> None:
        bind(self, address)
        if isinstance(address, tuple) and len(address) >= 2 and address[1] == 0:
            name = self.getsockname()
            if isinstance(name, tuple):
                TEMP_ROOT.ports.add(name[1])

    socket.socket.bind = bind_and_note  # type: ignore[method-assign, assignment]


def _spellings(data: bytes) -> set[str]:
    """How code spells a name made of ``data``: hex, url-safe base64 (``secrets``), and the
    uuid4 made of it."""
    found = {data.hex(), base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")}
    if len(data) == 16:
        made = uuid.UUID(bytes=data, version=4)
        found.update((str(made), made.hex))
    return found

"""Replay: run T for real and answer every call into E from the transcript.

T's references to E are rebound to plain stubs (no ``unittest.mock``: it costs more than many
real environments). Each call a stub receives is matched against the transcript under the
change language of ``changelang``; the recorded result is returned (E objects as stubs, the
same stub for the same reference), the recorded exception raised, recorded callbacks into T
invoked again with their results checked, and recorded changes to T's mutable arguments
reapplied. Anything else raises ``ReplayDivergence`` naming the call: the factored test is then
invalid for this T and the original system test must run instead.
"""

from __future__ import annotations

import contextlib
import os
import types
from pathlib import Path
from typing import Any, NoReturn

from lsp_server.factoring import fs_effects, transcript, values
from lsp_server.factoring.boundary import Boundary, Rebinding, project_modules, rebind
from lsp_server.factoring.changelang import Schedule, describe, is_read_only_name
from lsp_server.factoring.proxies import RealClassChecks, install_operators, stand_in
from lsp_server.factoring.run_varying import TEMP_ROOT, watch_run_varying
from lsp_server.factoring.values import Json

_SETTER_PREFIXES = ("set", "add")


def prepare_session(transcript_path: Path) -> None:
    """What every replay of a session needs, done before its first factored test runs (a
    cost of the session): the watch on fresh temporary names, and the verdict on which
    loaded modules are the project's (the transcript names the project's root)."""
    watch_run_varying()
    with contextlib.suppress(OSError, ValueError):  # the test itself reports a bad transcript
        data = transcript.load(transcript_path)
        project_modules((transcript_path.parent / data.get("root", ".")).resolve())


class ReplayDivergence(BaseException):
    """T did not use E as the transcript says. A BaseException: T's ``except Exception``
    must not swallow it."""


class FixtureDivergence(ReplayDivergence, Exception):
    """A divergence outside the test's body (a fixture's setup or teardown calling E): an
    Exception, as pytest lets only those out of fixtures cleanly (a BaseException left its
    setup state broken: every later test of the session errored). T swallowing it changes
    nothing: the replayer keeps the first divergence and reports it at teardown."""


def _in_test_body() -> bool:
    return os.environ.get("PYTEST_CURRENT_TEST", "").endswith(" (call)")


class Replayer:
    """Answers T's calls into E from one transcript."""

    def __init__(self, transcript: dict[str, Any], root: Path, boundaries: list[Boundary]) -> None:
        self.transcript = transcript
        self.root = root
        self.boundaries = boundaries
        self.schedule = Schedule(transcript["events"])
        self.divergence: ReplayDivergence | None = None
        self.answered = 0
        self._stubs: dict[int, Stub] = {}
        self._bound: dict[int, Any] = {}  # callback / T-object number -> T's live object
        self._live: list[Any] = []
        self._methods: dict[int, set[str]] = {}
        for event in transcript["events"]:
            if event["kind"] == "call" and "on" in event:
                self._methods.setdefault(int(event["on"]), set()).add(event["name"])
        self._rebinding: Rebinding | None = None

    def start(self) -> None:
        self._rebinding = rebind(self.root, self.boundaries, self._stand_in)

    def stop(self) -> None:
        if self._rebinding is not None:
            self._rebinding.restore()
            self._rebinding = None

    def finish(self, after_failure: bool = False) -> None:
        """Raise the first divergence, or one for recorded calls T never made (``after_failure``:
        the test failed before making them)."""
        if self.divergence is not None:
            raise self.divergence
        missing = self.schedule.missing()
        if missing:
            when = " (the test failed before it)" if after_failure else ""
            self.diverge(f"T never made the call the transcript expects: {_show(missing[0])}{when}")

    def diverge(self, message: str) -> NoReturn:
        test = self.transcript.get("test", "?")
        kind = ReplayDivergence if _in_test_body() else FixtureDivergence
        error = kind(f"replay of {test} diverged: {message}")
        if self.divergence is None:
            self.divergence = error
        raise error

    def _stand_in(self, name: str, value: Any) -> Any:
        return stand_in(self, name, value, ModuleStub, ClassStub, FunctionStub)

    # -- answering ----------------------------------------------------------------------------
    def answer(self, target: dict[str, Any], args: tuple, kwargs: dict, kind: str = "call") -> Any:
        self._live.clear()
        encoded = values.encode(list(args), self._outgoing) if kind != "get" else None
        encoded_kwargs = values.encode(kwargs, self._outgoing) if kwargs else None
        schedule = self.schedule
        on = target.get("on")
        index = schedule.head(schedule.set_of_ref(on))
        if index is not None:  # T made the next recorded call of its state set, as recorded
            event = schedule.events[index]
            if (
                schedule.calls[index] == (kind, on, target.get("name"), target.get("target"))
                and event.get("args") == encoded
                and event.get("kwargs") == encoded_kwargs
            ):
                schedule.consumed[index] = True
                self.answered += 1
                if schedule.plain[index]:
                    result = event.get("result")
                    if type(result) is dict and "$ref" in result:  # an E object: the usual
                        return self.stub(result["$ref"])
                    if "raise" not in event:
                        return values.decode(result, self._incoming)
                return self._respond(event, args)
        return self._answer_relaxed(target, args, kind, encoded, encoded_kwargs)

    def _answer_relaxed(
        self, target: dict[str, Any], args: tuple, kind: str, encoded: Json, encoded_kwargs: Json
    ) -> Any:
        """The call under the change language: after skipped read-only calls, among
        reordered setters, a read-only call T added; else a divergence."""
        call: dict[str, Any] = {"kind": kind, **target, "args": encoded, "kwargs": encoded_kwargs}
        pending: dict[int, Any] = {}

        def same(event: dict[str, Any]) -> bool:
            pending.clear()
            return (
                event["kind"] == kind
                and event.get("target") == call.get("target")
                and event.get("on") == call.get("on")
                and event.get("name") == call.get("name")
                and self._same(event.get("args"), call["args"], pending)
                and self._same(event.get("kwargs"), call["kwargs"], pending)
            )

        state_set = self.schedule.set_of_ref(target.get("on"))
        name = target.get("name") or ""
        is_setter = kind == "set" or name.startswith(_SETTER_PREFIXES)
        index = self.schedule.match(state_set, is_setter, same)
        if index is None and (kind == "get" or is_read_only_name(name)):
            index = self.schedule.nearest(state_set, same)
        if index is None:
            return self._unexpected(call, state_set)
        self._bound.update(pending)
        self.answered += 1
        return self._respond(self.schedule.events[index], args)

    def _unexpected(self, call: dict[str, Any], state_set: int) -> Any:
        fallback = _OBJECT_PROTOCOL.get(call.get("name") or "")
        if fallback is not None and "on" in call:
            return fallback(
                self._stubs.get(int(call["on"])), *values.decode(call["args"], self._incoming)
            )
        expected = self.schedule.expected(state_set)
        wanted = _show(expected) if expected else "no further call on it"
        self.diverge(f"T called {_show(call)} where the transcript expects {wanted}")

    def _respond(self, event: dict[str, Any], args: tuple) -> Any:
        result = event.get("result")
        plain = "callbacks" not in event and "mutated" not in event and "fs" not in event
        if plain and type(result) is dict and "$ref" in result:  # an E object: the usual
            return self.stub(result["$ref"])
        if "fs" in event:  # what a child process did to tmp_path
            fs_effects.redo(event["fs"], TEMP_ROOT.decode)
        for callback in event.get("callbacks", ()):
            self._run_callback(callback)
        for position, after in event.get("mutated", {}).items():
            _reapply(args[int(position)], values.decode(after, self._incoming))
        if "raise" in event:
            raise values.decode_exception(event["raise"], self._incoming)
        return values.decode(event.get("result", event.get("value")), self._incoming)

    def _run_callback(self, entry: dict[str, Any]) -> None:
        fn = self._bound.get(entry["cb"])
        if fn is None:
            self.diverge(f"E calls back callback #{entry['cb']}, which T never handed over")
        args = values.decode(entry["args"], self._incoming)
        kwargs = values.decode(entry.get("kwargs", {}), self._incoming)
        result = fn(*args, **kwargs)
        self._live.clear()
        encoded = values.encode(result, self._outgoing)
        if not self._same(entry.get("result"), encoded, {}):
            self.diverge(
                f"callback #{entry['cb']} ({values.qualified_name(fn)}) returned {encoded!r}, "
                f"the transcript has {entry.get('result')!r}"
            )

    def _same(self, recorded: Json, given: Json, pending: dict[int, Any]) -> bool:
        if recorded == given:  # plain data: one comparison in C
            return True
        if isinstance(recorded, dict) and isinstance(given, dict):
            if "$cb" in recorded or "$t" in recorded:
                tag = "$cb" if "$cb" in recorded else "$t"
                if tag not in given or recorded.get("type") != given.get("type"):
                    return False
                pending[recorded[tag]] = self._live[given["live"]]
                return True
            if recorded.keys() != given.keys():
                return False
            return all(self._same(recorded[k], given[k], pending) for k in recorded)
        if isinstance(recorded, list) and isinstance(given, list):
            return len(recorded) == len(given) and all(
                self._same(r, g, pending) for r, g in zip(recorded, given, strict=True)
            )
        return bool(recorded == given)

    # -- values -------------------------------------------------------------------------------
    def _outgoing(self, value: Any) -> Json:
        """A value T hands to a stub, in the form the transcript recorded it."""
        if isinstance(value, Stub):
            return {"$ref": object.__getattribute__(value, "_reks_ref")}
        if isinstance(value, FunctionStub):
            return {"$e": value._reks_name}
        if isinstance(value, BaseException):
            return {"$exc": values.encode_exception(value, self._outgoing)}
        if isinstance(value, types.TracebackType):
            return {"$traceback": None}
        if isinstance(value, type):
            return {"$class": values.qualified_name(value)}
        self._live.append(value)
        if isinstance(value, (types.FunctionType, types.MethodType)):
            return {"$cb": "live", "live": len(self._live) - 1}
        if callable(value) and hasattr(value, "__qualname__"):
            return {"$fn": values.qualified_name(value)}
        return {
            "$t": "live",
            "live": len(self._live) - 1,
            "type": values.qualified_name(type(value)),
        }

    def _incoming(self, data: dict[str, Any]) -> Any:
        """A recorded value E handed to T."""
        if "$ref" in data:
            return self.stub(int(data["$ref"]))
        if "$cb" in data or "$t" in data:
            return self._bound.get(data["$cb"] if "$cb" in data else data["$t"])
        if "$exc" in data:
            return values.decode_exception(data["$exc"], self._incoming)
        if "$fn" in data or "$e" in data:
            return values.import_name(data.get("$fn") or data["$e"])
        if "$await" in data:
            return self._awaited(int(data["$await"]))
        raise ValueError(f"unknown transcript value {data!r}")

    async def _awaited(self, number: int) -> Any:
        """E's awaitable as T gets it on replay: awaiting it is answered from the transcript."""
        return self.answer({"target": values.awaitable_name(number)}, (), {}, kind="await")

    def stub(self, ref: int) -> Stub:
        stub = self._stubs.get(ref)
        if stub is None:
            type_name = self.transcript.get("objects", {}).get(str(ref), "")
            try:
                cls = values.import_name(type_name)
            except ImportError:
                cls = Stub
            stub = Stub(self, ref, cls)
            self._stubs[ref] = stub
        return stub


def _reapply(target: Any, after: Any) -> None:
    """Make T's mutable argument what E left it as."""
    if isinstance(target, (list, bytearray)):
        target[:] = after
    elif isinstance(target, (dict, set)):
        target.clear()
        target.update(after)


def _show(event: dict[str, Any]) -> str:
    if event["kind"] == "get":
        return f"read of {describe(event)}"
    if event["kind"] == "set":
        return f"{describe(event)} = {event.get('args', [event.get('value')])[0]!r}"
    parts = [repr(a) for a in event.get("args") or []]
    parts += [f"{k}={v!r}" for k, v in (event.get("kwargs") or {}).items()]
    return f"{describe(event)}({', '.join(parts)})"


_OBJECT_PROTOCOL: dict[str, Any] = {
    "__repr__": lambda stub: (
        f"<replayed {type(stub).__name__} #{object.__getattribute__(stub, '_reks_ref')}>"
    ),
    "__str__": lambda stub: f"<replayed {type(stub).__name__}>",
    "__hash__": lambda stub: id(stub),
    "__eq__": lambda stub, other: stub is other,
    "__ne__": lambda stub, other: stub is not other,
    "__bool__": lambda stub: True,
}
"""How a stub answers what Python itself asks of any object, when the transcript never
recorded it (pytest's reports, dict keys): the default ``object`` behaviour."""


class FunctionStub:
    """A function of E answered from the transcript."""

    __slots__ = ("_reks_name", "_reks_real", "_reks_replay")

    def __init__(self, replayer: Replayer, name: str, real: Any) -> None:
        self._reks_replay, self._reks_name, self._reks_real = replayer, name, real

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._reks_replay.answer({"target": self._reks_name}, args, kwargs)

    def __repr__(self) -> str:
        return f"<replayed {self._reks_name}>"


class ClassStub(FunctionStub, RealClassChecks):
    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._reks_real, name)
        if callable(value) and not isinstance(value, type):
            return FunctionStub(self._reks_replay, f"{self._reks_name}.{name}", value)
        return value


class ModuleStub(FunctionStub):
    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._reks_real, name)
        qualified = f"{self._reks_name}.{name}"
        made = stand_in(self._reks_replay, qualified, value, ModuleStub, ClassStub, FunctionStub)
        return value if made is None else made


class Stub:
    """An object of E replayed from the transcript under its reference number."""

    __slots__ = ("_reks_class", "_reks_ref", "_reks_replay")

    def __init__(self, replayer: Replayer, ref: int, cls: type) -> None:
        object.__setattr__(self, "_reks_replay", replayer)
        object.__setattr__(self, "_reks_ref", ref)
        object.__setattr__(self, "_reks_class", cls)

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return object.__getattribute__(self, "_reks_class")

    def __getattr__(self, name: str) -> Any:
        replayer: Replayer = object.__getattribute__(self, "_reks_replay")
        ref = object.__getattribute__(self, "_reks_ref")
        if name in replayer._methods.get(ref, ()):

            def method(*args: Any, **kwargs: Any) -> Any:
                return replayer.answer({"on": ref, "name": name}, args, kwargs)

            return method
        if name.startswith("__"):
            raise AttributeError(name)
        return replayer.answer({"on": ref, "name": name}, (), {}, kind="get")

    def __setattr__(self, name: str, value: Any) -> None:
        replayer: Replayer = object.__getattribute__(self, "_reks_replay")
        ref = object.__getattribute__(self, "_reks_ref")
        replayer.answer({"on": ref, "name": name}, (value,), {}, kind="set")

    def _reks_operator(self, name: str, args: tuple, kwargs: dict) -> Any:
        replayer: Replayer = object.__getattribute__(self, "_reks_replay")
        ref = object.__getattribute__(self, "_reks_ref")
        return replayer.answer({"on": ref, "name": name}, args, kwargs)


install_operators(Stub)

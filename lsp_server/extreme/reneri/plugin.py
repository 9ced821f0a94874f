"""pytest plugin used only inside the Reneri subprocess (``-p lsp_server.extreme.reneri.plugin``).

After collection it (1) wraps the target function so that every invocation is observed
(infection stage), (2) instruments the covering tests' bodies so that their values are
observed (propagation stage), then replaces pytest's run loop: it forks ``runs`` children
that run the tests with the original code and ``runs`` children with the transformed code,
one after the other, each sending its observations back. Children are forked from a
parent that collected but ran nothing, so no run inherits warmed caches from another, and
each child reseeds ``random`` and shifts its heap so that values that depend on randomness
or object addresses vary between runs of the same side (and are then ignored).

The process is a ``lsp_server.sandbox`` process (started by ``observation_runs``): the
configuration is the first frame on its channel, each run's observations go back as one
frame, and the metadata as the last. Without a channel the plugin does nothing.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import os
import random
import sys
import types
from collections.abc import Callable
from sys import _getframe
from typing import Any

import pytest

from lsp_server.extreme.code_swap import (
    SwapError,
    compile_like,
    copy_function,
    find_def,
    find_functions,
)
from lsp_server.project.text import parse_python
from lsp_server.sandbox import TIMEOUT, Channel, Forker, inherited_channel

from .instrument import MAX_OCCURRENCES, RECORDER, Location, instrument
from .observe import observe
from .target_wrapper import ADISPATCH, DISPATCH, transformed_function, wrapper_code

ORIGINAL = "original"
TRANSFORMED = "transformed"

MAX_INVOCATIONS = 200
"""Invocations of the target observed per test (later ones are only counted)."""


class _State:
    def __init__(self) -> None:
        self.side = ORIGINAL
        self.test: str | None = None
        self.observing = False
        self.failed = False
        self.invocations = 0
        self.infection: dict[int, dict[str, str]] = {}
        self.lines: dict[int, int | None] = {}
        self.propagation: dict[int, dict[str, Any]] = {}
        self.impls: list[dict[str, Callable[..., Any]]] = []
        self.signatures: list[inspect.Signature | None] = []
        self.test_codes: set[types.CodeType] = set()
        self.roles: dict[int, list[str]] = {}

    def begin(self, test: str) -> None:
        self.test = test
        self.failed = False
        self.invocations = 0
        self.infection = {}
        self.lines = {}
        self.propagation = {}

    def end(self) -> dict[str, Any]:
        record = {
            "failed": self.failed,
            "invocations": self.invocations,
            "infection": self.infection,
            "lines": self.lines,
            "propagation": self.propagation,
        }
        self.test = None
        return record


STATE = _State()


# -- infection stage: the wrapped target ------------------------------------------------
def _dispatch(index: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    impl = STATE.impls[index][STATE.side]
    if STATE.observing or STATE.test is None:
        return impl(*args, **kwargs)
    number = STATE.invocations
    STATE.invocations += 1
    if number >= MAX_INVOCATIONS:
        return impl(*args, **kwargs)
    line = _test_line()
    try:
        result = impl(*args, **kwargs)
    except BaseException as exc:
        _record_invocation(index, number, line, args, kwargs, None, exc)
        raise
    _record_invocation(index, number, line, args, kwargs, result, None)
    return result


async def _adispatch(index: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    impl = STATE.impls[index][STATE.side]
    if STATE.observing or STATE.test is None:
        return await impl(*args, **kwargs)
    number = STATE.invocations
    STATE.invocations += 1
    if number >= MAX_INVOCATIONS:
        return await impl(*args, **kwargs)
    line = _test_line()
    try:
        result = await impl(*args, **kwargs)
    except BaseException as exc:
        _record_invocation(index, number, line, args, kwargs, None, exc)
        raise
    _record_invocation(index, number, line, args, kwargs, result, None)
    return result


def _test_line() -> int | None:
    """The line of the running test body that (directly or not) made this call."""
    frame = _getframe(2)
    while frame is not None:
        if frame.f_code in STATE.test_codes:
            return frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _record_invocation(
    index: int,
    number: int,
    line: int | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    result: Any,
    exc: BaseException | None,
) -> None:
    STATE.observing = True
    try:
        props: dict[str, str] = {}
        if exc is None:
            observe(result, props, "result\t")
        else:
            props["raised\t"] = type(exc).__qualname__
        signature = STATE.signatures[index]
        bound = None
        if signature is not None:
            try:
                bound = signature.bind(*args, **kwargs).arguments
            except TypeError:
                bound = None
        if bound is None:
            bound = {f"arg{i}": value for i, value in enumerate(args)} | dict(kwargs)
        for name, value in bound.items():
            observe(value, props, f"{name}\t")
        STATE.infection[number] = props
        STATE.lines[number] = line
    finally:
        STATE.observing = False


# -- propagation stage: the instrumented tests ------------------------------------------
def _rec(location: int, value: Any, *names: Any) -> Any:
    if STATE.test is None or STATE.observing:
        return value
    entry = STATE.propagation.setdefault(location, {"count": 0, "occ": {}})
    occurrence = entry["count"]
    entry["count"] = occurrence + 1
    if occurrence >= MAX_OCCURRENCES:
        return value
    STATE.observing = True
    try:
        props: dict[str, str] = {}
        roles = STATE.roles.get(location, [])
        for role, observed in zip(roles, (value, *names), strict=False):
            observe(observed, props, f"{role}\t")
        entry["occ"][occurrence] = props
    except Exception:
        pass  # an observation must never change the test's outcome
    finally:
        STATE.observing = False
    return value


# -- setting up ------------------------------------------------------------------------
class _Config:
    def __init__(self, raw: dict[str, Any]) -> None:
        self.file: str = raw["file"]
        self.qualname: str = raw["qualname"]
        self.line: int = raw["line"]
        self.body: str = raw["body"]
        self.runs: int = raw["runs"]
        self.timeout: float = raw["timeout"]


def _import_by_path(filename: str) -> None:
    """Import the module of ``filename`` under the name ``sys.path`` gives it, if any."""
    import importlib

    real = os.path.realpath(filename)
    for entry in sys.path:
        base = os.path.realpath(entry or os.getcwd())
        if not real.startswith(base + os.sep):
            continue
        relative = os.path.relpath(real, base)[: -len(".py")]
        parts = relative.split(os.sep)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts or not all(part.isidentifier() for part in parts):
            continue
        try:
            importlib.import_module(".".join(parts))
            return
        except Exception:
            continue


def _wrap_target(config: _Config) -> int:
    functions = find_functions(config.file, config.qualname, config.line)
    if not functions:
        _import_by_path(config.file)
        functions = find_functions(config.file, config.qualname, config.line)
    if not functions:
        raise SwapError(f"{config.qualname} is not loaded by the covering tests")
    with open(config.file, encoding="utf-8") as handle:
        tree = parse_python(handle.read(), config.file)
    funcdef = find_def(tree, config.qualname, config.line)
    for fn in functions:
        index = len(STATE.impls)
        original = copy_function(fn)
        transformed = transformed_function(fn, funcdef, config.body, config.file)
        code = wrapper_code(fn, index)
        try:
            signature: inspect.Signature | None = inspect.signature(original)
        except (TypeError, ValueError):
            signature = None
        STATE.impls.append({ORIGINAL: original, TRANSFORMED: transformed})
        STATE.signatures.append(signature)
        fn.__globals__[DISPATCH] = _dispatch
        fn.__globals__[ADISPATCH] = _adispatch
        fn.__code__ = code
    return len(functions)


def _test_def(
    tree: ast.Module, code: types.CodeType
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None] | None:
    """The ``def`` of a test's code object, and the name of the class that holds it."""

    def search(body: list[ast.stmt], klass: str | None) -> Any:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                if node.name == code.co_name and code.co_firstlineno in (first, node.lineno):
                    return node, klass
            elif isinstance(node, ast.ClassDef):
                found = search(node.body, node.name)
                if found is not None:
                    return found
        return None

    return search(tree.body, None)


def _instrument_tests(items: list[pytest.Item]) -> dict[str, Any]:
    """Swap every test function's code for an instrumented copy; return the metadata."""
    trees: dict[str, tuple[ast.Module, list[str]]] = {}
    functions: dict[str, dict[str, Any]] = {}
    tests: dict[str, dict[str, Any]] = {}
    done: dict[types.CodeType, str] = {}
    next_id = 0
    for item in items:
        obj = getattr(item, "obj", None)
        fn = inspect.unwrap(getattr(obj, "__func__", obj)) if obj is not None else None
        if not isinstance(fn, types.FunctionType):
            tests[item.nodeid] = {"function": None, "reason": "not a Python test function"}
            continue
        code = fn.__code__
        if code in done:
            tests[item.nodeid] = {"function": done[code]}
            continue
        key = f"{code.co_filename}::{fn.__qualname__}"
        try:
            if code.co_filename not in trees:
                with open(code.co_filename, encoding="utf-8") as handle:
                    text = handle.read()
                trees[code.co_filename] = (parse_python(text, code.co_filename), text.splitlines())
            tree, lines = trees[code.co_filename]
            found = _test_def(tree, code)
            if found is None:
                raise SwapError("test source not found")
            funcdef, klass = found
            new_def, locations = instrument(funcdef, lines, next_id)
            new_code = compile_like(new_def, code.co_freevars, code.co_filename, klass)
        except (OSError, SyntaxError, SwapError, ValueError) as exc:
            tests[item.nodeid] = {"function": None, "reason": f"not instrumented: {exc}"}
            continue
        next_id += len(locations)
        fn.__globals__[RECORDER] = _rec
        fn.__code__ = new_code
        STATE.test_codes.add(new_code)
        for location in locations:
            STATE.roles[location.id] = location.roles
        done[new_code] = done[code] = key
        functions[key] = {
            "file": code.co_filename,
            "qualname": fn.__qualname__,
            "line": funcdef.lineno,
            "locations": [Location.to_json(location) for location in locations],
        }
        tests[item.nodeid] = {"function": key}
    return {"functions": functions, "tests": tests}


# -- the run loop ------------------------------------------------------------------------
def _perturb() -> list[object]:
    """Fresh randomness and a shifted heap for this run (see the module docstring)."""
    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        with contextlib.suppress(Exception):
            numpy.random.seed()
    return [bytearray(random.randrange(1, 512)) for _ in range(random.randrange(1, 200))]


def _run_once(items: list[pytest.Item], side: str) -> dict[str, Any]:
    junk = _perturb()
    STATE.side = side
    records: dict[str, Any] = {}
    for position, item in enumerate(items):
        following = items[position + 1] if position + 1 < len(items) else None
        STATE.begin(item.nodeid)
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=following)
        records[item.nodeid] = STATE.end()
    del junk
    return records


def _run_all(channel: Channel, config: _Config, items: list[pytest.Item]) -> None:
    """Every run, each in a forked child; its records (or how it ended) go back at once."""
    forker = Forker()
    for run in range(config.runs):
        # Alternate the sides so that a slow drift (a warming disk cache, a loaded
        # machine) affects both alike.
        for side in (ORIGINAL, TRANSFORMED):
            outcome = forker.run(functools.partial(_run_once, items, side), config.timeout)
            message: dict[str, Any] = {"side": side, "number": run, "outcome": "ok"}
            if outcome.ok:
                message["records"] = outcome.value
            else:
                message["outcome"] = "timeout" if outcome.status == TIMEOUT else "crashed"
            channel.send(message)
    forker.wait_all()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    channel = inherited_channel()
    if channel is None:
        return None
    config = _Config(channel.receive())
    items = list(session.items)
    meta: dict[str, Any] = {"items": [item.nodeid for item in items], "error": None}
    try:
        meta["wrapped"] = _wrap_target(config)
    except (OSError, SyntaxError, SwapError) as exc:
        meta["error"] = str(exc)
        channel.send({"meta": meta})
        return True
    meta.update(_instrument_tests(items))
    _run_all(channel, config, items)
    channel.send({"meta": meta})
    return True


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed and STATE.test is not None:
        STATE.failed = True

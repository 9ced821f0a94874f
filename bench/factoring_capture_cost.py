"""What recording one call into E costs at capture: reks's recording stand-in (the wrapper
that ``boundary.rebind`` puts where T refers to E) against ``sys.monitoring`` (Python 3.12+)
local PY_START / PY_RETURN events on E's code objects, both writing the same transcript
events (arguments and result encoded as ``capture`` does), and against the bare call.

``sys.monitoring`` only sees E written in Python: a C function of E (``time.sleep``,
``sqlite3.Connection.execute``, ``posix.*``) fires no PY_START, and its C_RETURN event carries
no return value, so a transcript of it needs the wrapper in any case. The question this
answers is whether monitoring would be the cheaper route for the Python part of E.

    python bench/factoring_capture_cost.py [--calls 200000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from lsp_server.factoring import values
from lsp_server.factoring.capture import FunctionProxy, Recorder


def environment_function(rows: list[int], key: str, limit: int = 3) -> dict[str, Any]:
    """A small function of E written in Python: arguments in, plain data out."""
    return {"key": key, "count": min(len(rows), limit)}


def per_call(fn: Any, calls: int) -> float:
    rows = [1, 2, 3, 4]
    started = time.perf_counter()
    for _ in range(calls):
        fn(rows, "k", limit=2)
    return (time.perf_counter() - started) / calls


def wrapper_cost(calls: int) -> float:
    recorder = Recorder(Path("/"), [])
    stand_in = FunctionProxy(recorder, "bench_env.environment_function", environment_function)
    return per_call(stand_in, calls)


def monitoring_cost(calls: int) -> float | None:
    """The same events from local monitoring events on E's code object (None before 3.12)."""
    monitoring: Any = getattr(sys, "monitoring", None)
    if monitoring is None:
        return None
    code = environment_function.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    events: list[dict[str, Any]] = []
    stack: list[tuple[dict[str, Any], list[Any]]] = []

    def other(value: Any) -> Any:
        raise values.Unserialisable(type(value).__name__)

    def started(code_object: Any, offset: int) -> None:
        frame_locals = sys._getframe(1).f_locals
        arguments = [frame_locals[name] for name in names]
        event = {"kind": "call", "target": "bench_env.environment_function"}
        event["args"] = values.encode(arguments, other)
        events.append(event)
        stack.append((event, arguments))

    def returned(code_object: Any, offset: int, result: Any) -> None:
        event, arguments = stack.pop()
        for index, given in enumerate(arguments):  # E's changes to T's mutable arguments
            if type(given) in (list, dict, set, bytearray):
                after = values.encode(given, other)
                if after != event["args"][index]:
                    event.setdefault("mutated", {})[str(index)] = after
        event["result"] = values.encode(result, other)

    tool = next(t for t in range(6) if monitoring.get_tool(t) is None)
    monitoring.use_tool_id(tool, "reks-bench")
    try:
        events_wanted = monitoring.events.PY_START | monitoring.events.PY_RETURN
        monitoring.register_callback(tool, monitoring.events.PY_START, started)
        monitoring.register_callback(tool, monitoring.events.PY_RETURN, returned)
        monitoring.set_local_events(tool, code, events_wanted)
        return per_call(environment_function, calls)
    finally:
        monitoring.set_local_events(tool, code, 0)
        monitoring.free_tool_id(tool)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200_000)
    args = parser.parse_args()
    plain = per_call(environment_function, args.calls)
    wrapped = wrapper_cost(args.calls)
    monitored = monitoring_cost(args.calls)
    print(f"Python {sys.version.split()[0]}, {args.calls} calls of a Python function of E")
    print(f"bare call:                      {plain * 1e6:6.2f} us")
    print(f"reks recording wrapper:         {wrapped * 1e6:6.2f} us ({wrapped / plain:.1f}x)")
    if monitored is None:
        print("sys.monitoring:                 not available before Python 3.12")
        return
    print(f"sys.monitoring PY_START/RETURN: {monitored * 1e6:6.2f} us ({monitored / plain:.1f}x)")
    print(f"monitoring / wrapper: {monitored / wrapped:.2f}")


if __name__ == "__main__":
    main()

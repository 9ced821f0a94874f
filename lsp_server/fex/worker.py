"""The part of a generation that runs in the project's interpreter (``python -m
lsp_server.fex.worker``): import the class, build the model, search with its ``rep_ok``.

Reads a JSON request on stdin, writes the answer to ``request["result"]``, and progress to
stderr as ``FEX-PROGRESS done total message`` lines. When the SAT route is wanted but
python-sat is not installed here, answers ``need_sat`` with the model; the caller solves and
asks again with the instances, which are then checked against ``rep_ok`` here.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
from typing import Any

from lsp_server.fex import heap, suite
from lsp_server.fex.model import FexError, build_model
from lsp_server.jobs import Job

PROGRESS = "FEX-PROGRESS"


def _report(done: int, total: int | None, message: str) -> None:
    sys.stderr.write(f"{PROGRESS} {done} {total if total is not None else '-'} {message}\n")
    sys.stderr.flush()


def handle(request: dict[str, Any]) -> dict[str, Any]:
    try:
        module = importlib.import_module(request["module"])
    except Exception as exc:
        raise FexError(f"cannot import {request['module']}: {type(exc).__name__}: {exc}") from exc
    cls = getattr(module, request["cls"], None)
    if not isinstance(cls, type):
        raise FexError(f"{request['module']} has no class {request['cls']}")
    options = {"methods": request.get("methods") or [], "invariant": request["invariant"]}
    if request.get("instances") is not None:
        model = build_model(cls, request["scope"])
        instances = [heap.instance_from_json(i) for i in request["instances"]]
        made = suite.assemble(
            cls,
            model,
            "sat",
            instances,
            request["feasible"],
            request["seconds"],
            request.get("stats", {}),
            **options,
        )
        return {"suite": made.to_json()}
    route = request["route"]
    if route != "korat" and not suite.sat_available():
        model = build_model(cls, request["scope"])
        if route == "sat" or model.spec:
            return {"need_sat": model.to_json()}
    made = suite.generate(
        cls,
        request["scope"],
        route=route,
        budget=request["budget"],
        seconds=request.get("seconds_budget"),
        job=Job(on_progress=_report),
        **options,
    )
    return {"suite": made.to_json()}


def main() -> int:
    request = json.load(sys.stdin)
    sys.path.insert(0, os.getcwd())
    try:
        answer = handle(request)
    except FexError as exc:
        answer = {"error": str(exc)}
    except Exception as exc:
        answer = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
    with open(request["result"], "w", encoding="utf-8") as out:
        json.dump(answer, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

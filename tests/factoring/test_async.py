"""An async environment: coroutines E hands to T are awaited through the transcript, in
sequence and gathered, with E's exceptions; a changed T fails or diverges on replay."""

from __future__ import annotations

from pathlib import Path

from tests.factoring.helpers import edit, factor, make_project, outcomes

ENV = """
import asyncio


async def fetch(x):
    await asyncio.sleep(0.1)
    return {"value": x * 2}


async def broken(key):
    await asyncio.sleep(0.1)
    raise KeyError(key)
"""

LOGIC = """
import asyncio

from app import env


async def total(xs):
    first = await env.fetch(xs[0])
    rest = await asyncio.gather(*(env.fetch(x) for x in xs[1:]))
    try:
        await env.broken("k")
    except KeyError as exc:
        missing = exc.args[0]
    return first["value"] + sum(r["value"] for r in rest), missing
"""

TESTS = """
import asyncio

from app import logic


def test_total():
    assert asyncio.run(logic.total([1, 2, 3])) == (12, "k")
"""


def test_async_environment_is_replayed(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS, env=ENV)
    result = factor(root, "tests/test_logic.py::test_total", "app.env")
    assert result.status == "factored", result.reason
    factored = result.factored_test or ""
    assert outcomes(root, factored)[factored]["outcome"] == "passed"
    edit(root, "app/logic.py", "xs[1:]", "xs[2:]")
    after = outcomes(root, "tests/test_logic.py::test_total", factored)
    assert after["tests/test_logic.py::test_total"]["outcome"] == "failed"
    assert after[factored]["outcome"] == "failed", after[factored]

"""Extract method of a selection that returns, breaks or continues (rope refuses these; our
own extraction routes the jump through the new function's result). Real rope, real runs."""

from __future__ import annotations

import pytest

from lsp_server.refactor.model import RefactoringError
from tests.support.semantics import refactor, run

EVERY_PATH_RETURNS = """\
    def sign(n):
        print("checking", n)
        if n < 0:
            return -1
        if n == 0:
            return 0
        return 1


    print(sign(-4), sign(0), sign(9))
"""


def test_selection_that_always_returns_is_returned_by_the_call(tmp_project):
    path, before = refactor(
        tmp_project, EVERY_PATH_RETURNS, "extract-method", "if n < 0", "return 1", name="decide"
    )
    text = path.read_text()
    assert "return decide(n)" in text and "def decide(n):" in text
    assert run(path) == before


EARLY_RETURN = """\
    def work(n):
        acc = 0
        x = 1
        if n == 0:
            return -1
        x = n * 2
        acc += x
        print(acc, x)
        return acc


    print(work(0), work(3))
"""


def test_selection_with_an_early_return_hands_back_a_jump(tmp_project):
    path, before = refactor(
        tmp_project, EARLY_RETURN, "extract-method", "if n == 0", "acc += x", name="step"
    )
    text = path.read_text()
    assert "def step(" in text and "return value" in text
    assert run(path) == before


LOOP = """\
    def total(n):
        acc = 0
        for i in range(n):
            if i == 3:
                break
            if i % 2 == 0:
                continue
            acc += i
        print("after", acc)
        return acc


    print(total(2), total(8))
"""


def test_selection_in_a_loop_with_break_and_continue(tmp_project):
    path, before = refactor(
        tmp_project, LOOP, "extract-method", "if i == 3", "acc += i", name="visit"
    )
    text = path.read_text()
    assert "def visit(" in text
    assert "break" in text.split("def visit")[0] and "continue" in text.split("def visit")[0]
    assert run(path) == before


METHOD = """\
    class Counter:
        def __init__(self):
            self.seen = []

        def count(self, items):
            acc = 0
            for item in items:
                if item is None:
                    return -1
                self.seen.append(item)
                acc += item
            return acc


    c = Counter()
    print(c.count([1, 2]), c.count([1, None]), c.seen)
"""


def test_selection_in_a_method_becomes_a_method(tmp_project):
    path, before = refactor(
        tmp_project, METHOD, "extract-method", "if item is None", "acc += item", name="take"
    )
    text = path.read_text()
    assert "self.take(" in text and "def take(self, " in text
    assert run(path) == before


UNBOUND_AT_BREAK = """\
    def first_big(values):
        for v in values:
            if v > 10:
                break
            last = v
        print(last)


    first_big([1, 2, 30])
"""


def test_break_before_a_needed_variable_is_bound_is_refused(tmp_project):
    with pytest.raises(RefactoringError, match=r"`last` .*main.py:4"):
        refactor(
            tmp_project, UNBOUND_AT_BREAK, "extract-method", "if v > 10", "last = v", name="see"
        )


PLAIN_METHOD = """\
    class Counter:
        def __init__(self):
            self.seen = []

        def count(self, items):
            acc = 0
            for item in items:
                self.seen.append(item)
                acc += item
            return acc


    c = Counter()
    print(c.count([1, 2]), c.seen)
"""


def test_rope_method_reading_self_is_not_refused(tmp_project):
    # The receiver rope passes through `self.new(...)` counts as passed.
    path, before = refactor(
        tmp_project, PLAIN_METHOD, "extract-method", "self.seen.append", "acc += item", name="take"
    )
    assert "acc = self.take(item, acc)" in path.read_text()
    assert run(path) == before


GLOBAL_WHILE_TRUE = """\
    COUNT = 0


    def bump(items):
        global COUNT
        total = 0
        while True:
            if not items:
                break
            v = items.pop()
            if v < 0:
                return v, total
            COUNT += 1
            total += v
        print("total", total)
        return total, COUNT


    print(bump([1, 2, 3]), bump([1, -2, 3]), COUNT)
"""


def test_selection_binding_a_global_in_a_while_true_loop(tmp_project):
    path, before = refactor(
        tmp_project, GLOBAL_WHILE_TRUE, "extract-method", "if not items", "total += v", name="step"
    )
    definition = path.read_text().split("def step")[1]
    assert "global COUNT" in definition and '"return", (v, total)' in definition
    assert run(path) == before


ASYNC_FINALLY = """\
    import asyncio


    async def get(v):
        return v * 2


    async def run(n):
        acc = 0
        for i in range(n):
            try:
                if i == 2:
                    continue
                acc += await get(i)
            finally:
                print("f", i)
        return acc


    print(asyncio.run(run(4)))
"""


def test_selection_that_awaits_and_continues(tmp_project):
    path, before = refactor(
        tmp_project, ASYNC_FINALLY, "extract-method", "if i == 2", "await get(i)", name="one"
    )
    assert "jump, acc = await one(i, acc)" in path.read_text()
    assert run(path) == before

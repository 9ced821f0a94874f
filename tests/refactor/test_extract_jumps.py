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

FINALLY_READS = """\
    def work(items):
        acc = 0
        try:
            for v in items:
                acc += v
                if v < 0:
                    return -1
                acc += 1
        finally:
            print("acc", acc)
        return acc


    print(work([1, 2]), work([1, -1]))
"""


# (program, selection from, selection through, what the result holds)
EXTRACTED = [
    pytest.param(
        EVERY_PATH_RETURNS,
        "if n < 0",
        "return 1",
        ["    return new(n)\n", "def new(n):"],
        id="returns",
    ),
    pytest.param(
        EARLY_RETURN,
        "if n == 0",
        "acc += x",
        ["jump, value, acc, x = new(n, acc)", 'return "return", -1, None, None'],
        id="early-return",
    ),
    pytest.param(
        LOOP,
        "if i == 3",
        "acc += i",
        ['jump, acc = new(i, acc)\n        if jump == "break":\n            break'],
        id="break-continue",
    ),
    pytest.param(
        METHOD,
        "if item is None",
        "acc += item",
        ["jump, value, acc = self.new(item, acc)", "def new(self, item, acc):"],
        id="method",
    ),
    # rope extracts this itself; the check counted the receiver `self` as not passed.
    pytest.param(
        METHOD, "self.seen.append", "acc += item", ["acc = self.new(item, acc)"], id="self"
    ),
    pytest.param(
        GLOBAL_WHILE_TRUE,
        "if not items",
        "total += v",
        ["def new(items, total):\n    global COUNT", '"return", (v, total), total'],
        id="global-while-true",
    ),
    pytest.param(
        ASYNC_FINALLY,
        "if i == 2",
        "await get(i)",
        ["jump, acc = await new(i, acc)", "async def new(i, acc):"],
        id="async",
    ),
    # A `finally` around the call reads `acc` after the return: it must keep its value.
    pytest.param(FINALLY_READS, "acc += v", "acc += 1", ['"return", -1, acc'], id="finally"),
]


@pytest.mark.parametrize(("source", "start", "end", "expected"), EXTRACTED)
def test_selection_that_jumps_is_extracted(tmp_project, source, start, end, expected):
    path, before = refactor(tmp_project, source, "extract-method", start, end, name="new")
    text = path.read_text()
    assert all(part in text for part in expected), text
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


FINALLY_READS_UNBOUND = """\
    def work(items):
        try:
            for v in items:
                k = v * 2
                if v < 0:
                    return -1
        finally:
            print("k", k)
        return 0


    print(work([1, 2]), work([1, -1]))
"""


def test_return_past_a_finally_reading_a_possibly_unbound_output_is_refused(tmp_project):
    with pytest.raises(RefactoringError, match=r"`try` at main.py:2, whose `finally` .*`k`"):
        refactor(
            tmp_project, FINALLY_READS_UNBOUND, "extract-method", "k = v", "return -1", name="see"
        )


NESTED = """\
    def outer(items, limit):
        def inner():
            out = []
            for x in items:
                if x is None:
                    continue
                if x > limit:
                    break
                out.append(x)
            return out

        return inner()


    print(outer([1, None, 2, 9, 3], 5))
"""

STATIC_AND_CLASS = """\
    class Tally:
        base = 10

        @staticmethod
        def plain(items):
            total = 0
            for x in items:
                if x < 0:
                    break
                total += x
            return total

        @classmethod
        def scaled(cls, items):
            total = 0
            for x in items:
                if x is None:
                    return -1
                total += x * cls.base
            return total


    print(Tally.plain([1, 2, -1, 4]), Tally.scaled([1, 2]), Tally.scaled([None]))
"""

LOCAL_CLASS_METHOD = """\
    def make(limit):
        class Box:
            def fill(self, items):
                kept = []
                for x in items:
                    if x > limit:
                        break
                    kept.append(x)
                return kept

        return Box().fill([1, 2, 7, 3])


    print(make(5))
"""


@pytest.mark.parametrize(
    ("source", "start", "end", "expected"),
    [
        pytest.param(
            NESTED,
            "if x is None",
            "out.append(x)",
            ["    def new(x, out):\n", 'jump = new(x, out)\n            if jump == "break"'],
            id="nested-function",
        ),
        pytest.param(
            STATIC_AND_CLASS,
            "if x < 0",
            "total += x\n",
            ["\n\ndef new(x, total):\n", "jump, total = new(x, total)"],
            id="staticmethod",
        ),
        pytest.param(
            STATIC_AND_CLASS,
            "if x is None",
            "total += x * cls.base",
            ["\n\ndef new(x, total, cls):\n"],
            id="classmethod",
        ),
        pytest.param(
            LOCAL_CLASS_METHOD,
            "if x > limit",
            "kept.append(x)",
            ["    def new(x, kept):\n"],
            id="method-of-a-local-class",
        ),
    ],
)
def test_jumps_in_nested_static_and_class_methods_are_extracted(
    tmp_project, source, start, end, expected
):
    path, before = refactor(tmp_project, source, "extract-method", start, end, name="new")
    text = path.read_text()
    assert all(part in text for part in expected), text
    assert run(path) == before


def test_a_nested_extraction_whose_name_the_outer_function_uses_is_refused(tmp_project):
    source = NESTED.replace("return inner()", "new = inner()\n        return new")
    with pytest.raises(RefactoringError, match=r"`new` .*`outer`"):
        refactor(tmp_project, source, "extract-method", "if x is None", "out.append(x)", name="new")


MANGLED = """\
    class Vault:
        __secret = 3

        @staticmethod
        def pick(items):
            for x in items:
                if x == Vault.__secret:
                    return x
            return None


    print(Vault.pick([1, 3]))
"""


def test_a_private_name_leaving_its_class_is_refused(tmp_project):
    with pytest.raises(RefactoringError, match=r"`__secret` .*main.py:7"):
        refactor(tmp_project, MANGLED, "extract-method", "for x in items", "return x", name="new")


TWICE = """\
    def scan(a, b):
        acc = 0
        for x in a:
            if x < 0:
                break
            acc += x
        for x in b:
            if x < 0:
                break
            acc += x
        for x in b:
            if x < 0:
                break
            acc += x
            print("late", acc)
        print(acc)
        return acc


    print(scan([1, 2, -1, 5], [3, -2]), scan([], [4]))
"""


def test_similar_runs_of_a_selection_that_jumps_are_replaced_too(tmp_project):
    """The same statements with the same interface become the same call; the last run is
    followed by a read of `acc` inside the loop too, and is replaced all the same."""
    path, before = refactor(
        tmp_project, TWICE, "extract-method", "if x < 0", "acc += x", name="new", similar=True
    )
    text = path.read_text()
    assert text.count("jump, acc = new(x, acc)") == 3, text
    assert "x < 0" in text and text.count("x < 0") == 1, text
    assert run(path) == before


IN_A_MODULE_BLOCK = """\
    import sys

    if sys.version_info >= (3,):

        def first_even(items):
            for x in items:
                if x % 2 == 0:
                    return x
                print("odd", x)
            return None


    print(first_even([1, 3, 4, 5]))
"""


def test_jumps_in_a_function_defined_in_a_module_block(tmp_project):
    path, before = refactor(
        tmp_project, IN_A_MODULE_BLOCK, "extract-method", "if x % 2", 'print("odd", x)', name="new"
    )
    assert "    def new(x):\n" in path.read_text()
    assert run(path) == before

"""Extract method and extract variable keep the data flow (real rope, small projects)."""

from __future__ import annotations

import pytest

from lsp_server.refactor.model import RefactoringError, RefactorRequest
from tests.support.semantics import refactor, run

# isort's shape: inside a `while` loop a branch binds `word` and `continue`s; the selection
# binds `word` again before reading it. rope passed `word`, unbound at the call.
LOOP_BRANCH_REBOUND = """\
    def render(lines):
        out = []
        pending = list(lines)
        while pending:
            line = pending.pop(0)
            if line.startswith("#"):
                for word in line[1:].split():
                    out.append("comment " + word)
                continue
            for word in line.split(","):
                if not word:
                    continue
                out.append("item " + word)
            print(len(out))
        return out


    print(render(["a,b", "# x y", "c"]))
"""


def test_extract_method_in_while_drops_parameter_unbound_at_call(tmp_project):
    path, before = refactor(
        tmp_project,
        LOOP_BRANCH_REBOUND,
        "extract-method",
        "for word in line.split",
        "(len(out))",
        name="emit",
    )
    text = path.read_text()
    assert "emit(line, out)" in text and "def emit(line, out):" in text
    assert run(path) == before


LOOP_BRANCH_READ = """\
    def tags(items):
        seen = []
        i = 0
        while i < len(items):
            item = items[i]
            if item.startswith("as "):
                alias = item[3:]
            if item.startswith("as "):
                seen.append(alias)
            else:
                seen.append(item)
            i += 1
        return seen


    print(tags(["x", "as y"]))
"""


def test_extract_method_refuses_variable_bound_in_one_branch_before(tmp_project):
    with pytest.raises(RefactoringError, match=r"`alias` is read at main.py:9 .*main.py:8"):
        refactor(
            tmp_project,
            LOOP_BRANCH_READ,
            "extract-method",
            'if item.startswith("as "):\n            seen',
            "seen.append(item)",
            name="emit",
        )


TWO_LOOPS = """\
    def work(n):
        acc = 0
        for i in range(n):
            if i == 3:
                break
            acc += i
        for i in range(n):
            if i == 3:
                break
            acc += i
        print(acc)
        return acc


    print(work(0), work(5))
"""


def test_extract_method_loop_variable_of_an_earlier_loop_is_not_passed(tmp_project):
    path, before = refactor(
        tmp_project,
        TWO_LOOPS,
        "extract-method",
        "for i in range(n):\n        if i == 3:\n            break\n        acc += i\n    print",
        "return acc",
        name="ext",
    )
    assert "ext(n, i" not in path.read_text()
    assert run(path) == before


def test_extract_method_of_awaiting_code_makes_an_awaited_coroutine(tmp_project):
    source = """\
        import asyncio


        async def source():
            return 7


        async def fetch():
            value = await source()
            print(value)
            return value + 1


        print(asyncio.run(fetch()))
    """
    path, before = refactor(
        tmp_project, source, "extract-method", "value = await", "print(value)", name="f"
    )
    text = path.read_text()
    assert "async def f(" in text and "value = await f()" in text
    assert run(path) == before == "7\n8\n"


WHILE_LOOP = """\
    def work(n):
        x = 1
        while x < n:
            x += 2
            if x == 3:
                print("three")
                continue
            print(x)  # shown
        else:
            print("done")
        return x


    print(work(6))
"""


def test_extract_variable_of_while_condition_is_assigned_again_each_iteration(tmp_project):
    path, before = refactor(
        tmp_project, WHILE_LOOP, "extract-variable", "x < n", "x < n", name="more"
    )
    text = path.read_text()
    assert "while more:" in text and text.count("more = x < n") == 3
    assert run(path) == before


@pytest.mark.parametrize(
    ("source", "selected", "reason"),
    [
        ("def f(a, b):\n    return a and b.real + 1\n", "b.real + 1", "`and`"),
        ("def f(a, b):\n    return b.real if a else 0\n", "b.real", "conditional expression"),
        ("def f(xs):\n    return [x + 1 for x in xs]\n", "x + 1", "comprehension"),
        ("def f(g, h):\n    return [g(), h().real]\n", "h().real", r"`g\(\)` is evaluated before"),
    ],
)
def test_extract_variable_refuses_moving_lazy_or_later_evaluation(
    tmp_project, source, selected, reason
):
    root, engine = tmp_project
    path = root / "main.py"
    path.write_text(source)
    start = source.index(selected)
    request = RefactorRequest(
        "extract-variable", str(path), start, start + len(selected), {"name": "v"}
    )
    with pytest.raises(RefactoringError, match=reason):
        engine.compute(request)


def test_rope_parse_failure_is_reported_as_ropes(tmp_project):
    source = """\
        class ParseError(Exception):
            def __init__(self, found):
                self.found = found

            def explain(self):
                found_str = f", found {self.found}" if self.found else ""
                return found_str
    """
    with pytest.raises(RefactoringError, match="limitation of rope, not an error in your file"):
        refactor(tmp_project, source, "extract-method", "found_str = f", 'else ""', name="part")


LOOP_BODY_SAME_CONDITION = """\
    def work(n):
        acc = 0
        x = 1
        while x < n:
            x += 1
            if x % 2 == 0:
                k = x
            if x % 2 == 0:
                acc += k
        return acc


    print(work(6))
"""


def test_extract_method_of_a_loop_body_reading_a_name_under_its_binding_condition(tmp_project):
    # Not a refusal: both tests agree, so `k` is read only where the selection bound it.
    path, before = refactor(
        tmp_project, LOOP_BODY_SAME_CONDITION, "extract-method", "x += 1", "acc += k", name="step"
    )
    assert "def step(" in path.read_text()
    assert run(path) == before


# The selection, from its first line through `acc`'s update, after `k` is bound in a branch.
READ_LATER = """\
def work(n):
    acc = 0
    x = 1
    while x < n:
        x += 1
        if x % 2 == 0:
            k = x
        if x % 2 == 0:
{selected}
    return acc


print(work(6))
"""


def test_extract_method_passes_a_maybe_unbound_name_read_before_anything_else(tmp_project):
    # `k` may be unbound where the selection starts, but reading it is the first thing the
    # selection does: unbound, the call raises the same UnboundLocalError, nothing ran before.
    source = READ_LATER.format(selected="            acc += k")
    path, before = refactor(
        tmp_project, source, "extract-method", "acc += k", "acc += k", name="add"
    )
    assert "acc = add(k, acc)" in path.read_text()
    assert run(path) == before


@pytest.mark.parametrize(
    ("selected", "first"),
    [
        ('            print("adding")\n            acc += k', "print("),
        ("            acc += abs(x) + k", "acc +="),
    ],
    ids=["effect-first", "call-first"],
)
def test_extract_method_still_refuses_a_maybe_unbound_name_read_later(tmp_project, selected, first):
    """Guards the case above: after an effect an unbound `k` would fail later than it did."""
    source = READ_LATER.format(selected=selected)
    with pytest.raises(RefactoringError, match=r"`k` is read at .* not assigned on every path"):
        refactor(tmp_project, source, "extract-method", first, "k\n", name="add")


def test_extract_method_still_refuses_a_maybe_unbound_name_read_under_a_condition(tmp_project):
    source = READ_LATER.format(selected="            acc += k")
    with pytest.raises(RefactoringError, match=r"`k` is read at .* not assigned on every path"):
        refactor(
            tmp_project,
            source,
            "extract-method",
            "if x % 2 == 0:\n            acc",
            "k\n",
            name="add",
        )


def test_extract_method_of_an_assigned_expression(tmp_project):
    source = """\
        def double(value):
            return value * 2


        def quadruple(value):
            result = double(value) * 2
            return result


        print(quadruple(3))
    """
    path, before = refactor(
        tmp_project, source, "extract-method", "double(value) * 2", "* 2", name="times_four"
    )
    assert "result = times_four(value)" in path.read_text()
    assert run(path) == before


def test_extract_method_storing_an_attribute_does_not_rebind_the_object(tmp_project):
    # `box.size = n` changes the object; `box` stays the caller's, nothing to return.
    source = """\
        class Box:
            size = 0


        def work(n):
            box = Box()
            box.size = n
            box.items = [n]
            print(box.size, box.items)


        work(3)
    """
    path, before = refactor(tmp_project, source, "extract-method", "box.size =", "[n]", name="fill")
    assert "    fill(n, box)\n" in path.read_text()
    assert run(path) == before

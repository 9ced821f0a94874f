"""Inline variable keeps precedence, the values of the inlined expression's inputs, and
single evaluation (real rope, small projects)."""

from __future__ import annotations

import re

import pytest

from lsp_server.refactor.model import RefactoringError
from tests.support.semantics import inline, run


def test_inline_parenthesises_where_precedence_needs_it(tmp_project):
    source = """\
        def work(n):
            y = n + 1
            print(y)
            print(y * 2, -y, [y], f"<{y}>")


        work(3)
    """
    path, before = inline(tmp_project, source, "y =")
    text = path.read_text()
    assert 'print((n + 1) * 2, -(n + 1), [n + 1], f"<{n + 1}>")' in text
    assert "print(n + 1)" in text
    assert run(path) == before


@pytest.mark.parametrize(
    "between",
    ["n = n * 10", "for n in range(2): pass", "n += 1"],
)
def test_inline_refuses_when_an_input_is_rebound_before_the_use(tmp_project, between):
    source = f"""\
        def work(n):
            y = n + 1
            {between}
            print(y)


        work(3)
    """
    with pytest.raises(RefactoringError, match=r"`n` is assigned again at main.py:3"):
        inline(tmp_project, source, "y =")


def test_inline_refuses_input_rebound_in_a_loop_around_the_use(tmp_project):
    source = """\
        def work(n):
            y = n + 1
            for i in range(3):
                print(y)
                n = i


        work(3)
    """
    with pytest.raises(RefactoringError, match=r"`n` is assigned again at main\.py:5"):
        inline(tmp_project, source, "y =")


def test_inline_refuses_input_rebound_before_a_closure_runs(tmp_project):
    source = """\
        def work(n):
            y = n + 1

            def later():
                return y

            n = 0
            return later()


        print(work(3))
    """
    with pytest.raises(RefactoringError, match=r"`n` is assigned again at main\.py:7"):
        inline(tmp_project, source, "y =")


def test_inline_refuses_evaluating_a_call_twice(tmp_project):
    source = """\
        def tick(log):
            log.append(1)
            return len(log)


        def work(log):
            y = tick(log)
            print(y, y)


        work([])
    """
    with pytest.raises(RefactoringError, match="used 2 times"):
        inline(tmp_project, source, "y =")


def test_inline_of_a_pure_value_twice_is_done(tmp_project):
    source = """\
        def work(n):
            y = len(str(n))
            print(y, y)


        work(300)
    """
    path, before = inline(tmp_project, source, "y =")
    assert "print(len(str(n)), len(str(n)))" in path.read_text()
    assert run(path) == before


def test_inline_refuses_a_call_that_would_only_run_conditionally(tmp_project):
    source = """\
        def work(log, flag):
            y = log.pop()
            if flag:
                print(y)
            print(log)


        work([1, 2], False)
    """
    with pytest.raises(RefactoringError, match="not evaluated exactly once"):
        inline(tmp_project, source, "y =")


def test_inline_refuses_input_shadowed_where_the_use_runs(tmp_project):
    source = """\
        def work(n):
            y = n + 1
            return [y for n in range(2)]


        print(work(5))
    """
    with pytest.raises(RefactoringError, match=r"`n` is assigned again at main\.py:3"):
        inline(tmp_project, source, "y =")


@pytest.mark.parametrize(
    ("value", "between", "changed"),
    [
        ("a[0]", "a.sort()", "a.sort()"),
        ("a[0]", "a[0] = 7", "a[0] = 7"),
        ("len(a)", "a.append(9)", "a.append(9)"),
        ("a[0]", "grow(a)", "grow(a)"),
    ],
    ids=["sort", "store-item", "append", "passed-to-call"],
)
def test_inline_refuses_when_an_input_changes_in_place_before_the_use(
    tmp_project,
    value,
    between,
    changed,
):
    source = f"""\
        def grow(items):
            items.insert(0, 5)


        def work():
            a = [3, 1]
            y = {value}
            {between}
            print(y)


        work()
    """
    with pytest.raises(RefactoringError, match=rf"`{re.escape(changed)}` at main\.py:8 may change"):
        inline(tmp_project, source, "y =")


def test_inline_across_a_read_only_call_is_done(tmp_project):
    source = """\
        def work():
            a = [3, 1]
            y = a[0]
            print(a.count(3), len(a))
            print(y)


        work()
    """
    path, before = inline(tmp_project, source, "y =")
    assert "print(a[0])" in path.read_text()
    assert run(path) == before


def test_inline_of_a_new_object_used_once_later_is_done(tmp_project):
    # `a + [0]` makes a list and calls nothing: made once, later, for its only use, it is
    # the same list (no one else could see the first one).
    source = """\
        def work():
            a = [3, 1]
            y = a + [0]
            print(a.count(3))
            print(y)


        work()
    """
    path, before = inline(tmp_project, source, "y =")
    assert "print(a + [0])" in path.read_text()
    assert run(path) == before


def test_inline_still_refuses_a_new_object_made_again_in_a_loop(tmp_project):
    """Guards the case above: in a loop the one use would make a new list each time."""
    source = """\
        def work():
            a = [3, 1]
            keep = []
            y = a + [0]
            for i in range(2):
                keep.append(y)
            keep[0].append(5)
            print(keep)


        work()
    """
    with pytest.raises(RefactoringError, match="not evaluated exactly once"):
        inline(tmp_project, source, "y =")

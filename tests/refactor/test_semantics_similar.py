"""Extract with similar occurrences: every occurrence rope replaces is checked, not only
the selected one (real rope, small projects)."""

from __future__ import annotations

import pytest

from lsp_server.refactor.model import RefactoringError
from tests.support.semantics import refactor, run


@pytest.mark.parametrize(
    ("between", "reason"),
    [
        ("a.sort()", r"`a\.sort\(\)` at main\.py:\d+ may change in place"),
        ("a = [9]", r"`a` is assigned again"),
    ],
    ids=["changed-in-place", "rebound"],
)
def test_extract_variable_similar_refuses_an_occurrence_reading_another_value(
    tmp_project,
    between,
    reason,
):
    source = f"""\
        def work():
            a = [3, 1]
            print(a[0] + 1)
            {between}
            print(a[0] + 1)


        work()
    """
    with pytest.raises(RefactoringError, match=reason):
        refactor(
            tmp_project, source, "extract-variable", "a[0] + 1", "a[0] + 1", name="v", similar=True
        )


def test_extract_variable_similar_refuses_a_lazy_occurrence(tmp_project):
    source = """\
        def work(n):
            print(n + 1)
            print(n > 5 and n + 1)


        work(3)
    """
    with pytest.raises(RefactoringError, match=r"operands before it in `and`.*main\.py:3"):
        refactor(tmp_project, source, "extract-variable", "n + 1", "n + 1", name="v", similar=True)


def test_extract_variable_similar_without_changes_in_between_is_done(tmp_project):
    source = """\
        def work():
            a = [3, 1]
            print(a[0] + 1)
            print(len(a), a.count(3))
            print(a[0] + 1)


        work()
    """
    path, before = refactor(
        tmp_project, source, "extract-variable", "a[0] + 1", "a[0] + 1", name="v", similar=True
    )
    assert path.read_text().count("print(v)") == 2
    assert run(path) == before


def test_extract_method_similar_refuses_an_occurrence_with_another_live_out(tmp_project):
    source = """\
        def work(n):
            x = n + 1
            print(x)
            x = 0
            print(x)
            x = n + 1
            print(x)
            print(x * 2)


        work(3)
    """
    with pytest.raises(RefactoringError, match=r"`x` is bound in the selection and read after"):
        refactor(
            tmp_project, source, "extract-method", "x = n", "print(x)", name="show", similar=True
        )

"""A method looking up an attribute of its own instance by a name with a constant prefix
(sqlparse's filters: ``getattr(self, f'_process_{type(t).__name__}'.lower(), default)``) can
find only the class attributes whose names start with the prefix: a test that ran it
depends on those and on the classes, not on every class attribute of its modules (a new
method of a filter reran every formatting test)."""

from __future__ import annotations

import ast

import pytest

from lsp_server.rts.lookups import ATTRIBUTE_LOOKUP, looks_up_by_string

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "filters.py",
        """
        class Filter:
            width = 2

            def process(self, item):
                func_name = f"_process_{type(item).__name__}"
                func = getattr(self, func_name.lower(), self._process_default)
                return func(item)

            def _process_list(self, item):
                return "list"

            def _process_tuple(self, item):
                return "tuple"

            def _process_default(self, item):
                return "default"

            def render(self):
                return "-" * self.width

            def helper(self):
                return 1
        """,
    )
    write(
        pytester,
        "test_filters.py",
        """
        import filters


        def test_process():
            assert filters.Filter().process([]) == "list"
            assert filters.Filter().process({}) == "default"


        def test_render():
            assert filters.Filter().render() == "--"
        """,
    )
    assert len(run(pytester, flag="--reks-all")) == 2
    return pytester


def test_an_attribute_without_the_prefix_is_not_found(project: pytest.Pytester) -> None:
    edit(project, "filters.py", "width = 2", "width = 3")
    assert run(project) == {"test_render"}


def test_a_new_method_without_the_prefix_is_not_found(project: pytest.Pytester) -> None:
    edit(
        project,
        "filters.py",
        "    def helper(self):",
        "    def other(self):\n        return 2\n\n    def helper(self):",
    )
    assert run(project) == set()


def test_a_new_method_with_the_prefix_selects_the_lookup(project: pytest.Pytester) -> None:
    edit(
        project,
        "filters.py",
        "    def helper(self):",
        "    def _process_dict(self, item):\n        return 'dict'\n\n    def helper(self):",
    )
    assert run(project) == {"test_process"}


def test_a_changed_header_with_the_prefix_selects_the_lookup(project: pytest.Pytester) -> None:
    edit(
        project,
        "filters.py",
        "def _process_tuple(self, item):",
        "def _process_tuple(self, item, x=1):",
    )
    assert run(project) == {"test_process"}


def test_a_name_held_in_a_rebound_local_has_no_prefix(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "kinds.py",
        """
        class Kind:
            short = "s"

            def pick(self, kind):
                name = f"_pick_{kind}"
                if kind.startswith("s"):
                    name = kind
                return getattr(self, name, None)

            def _pick_a(self):
                return 1
        """,
    )
    write(
        pytester,
        "test_kinds.py",
        """
        import kinds


        def test_pick():
            assert kinds.Kind().pick("".join(["sh", "ort"])) == "s"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_pick"}
    edit(pytester, "kinds.py", 'short = "s"', 'short = "t"')
    assert run(pytester) == {"test_pick"}


@pytest.mark.parametrize(
    ("lookup", "prefix"),
    [
        ("getattr(self, f'_process_{kind}')", "_process_"),
        ("getattr(self, f'_Process_{kind}'.lower(), None)", "_process_"),
        ("getattr(self, '_visit_{}'.format(kind).upper())", "_VISIT_"),
        ("hasattr(self, 'on_{0}_{{x}}'.format(kind))", "on_"),
        ("getattr(self, name.lower())", ""),
        ("getattr(self, '_process_' + kind)", ""),  # ``kind.__radd__`` may answer
        ("getattr(self, '_p_%s' % kind)", ""),
        ("getattr(self, f'{kind}_x')", ""),
        ("getattr(self, f'été_{kind}'.lower())", ""),  # not ASCII: no mapping one by one
        ("getattr(self, f'on@{kind}')", "on"),  # no identifier goes on past "@"
    ],
)
def test_the_prefix_of_a_computed_name(lookup: str, prefix: str) -> None:
    source = f"class C:\n    def m(self, kind, name):\n        return {lookup}\n"
    method = ast.parse(source).body[0].body[0]  # type: ignore[attr-defined]
    assert looks_up_by_string(method, method=True) == ATTRIBUTE_LOOKUP + prefix


@pytest.mark.parametrize(
    "body",
    [
        "name = f'_n_{kind}'\n        name = kind\n        return getattr(self, name)",
        "name = f'_n_{kind}'\n        for name in kind: pass\n        return getattr(self, name)",
        "global name\n        name = f'_n_{kind}'\n        return getattr(self, name)",
        "name = f'_n_{kind}'\n        def g():\n            nonlocal name\n"
        "            name = kind\n        g()\n        return getattr(self, name)",
        "return getattr(self, kind)",
    ],
)
def test_a_name_bound_more_than_once_has_no_prefix(body: str) -> None:
    source = f"class C:\n    def m(self, kind):\n        {body}\n"
    method = ast.parse(source).body[0].body[0]  # type: ignore[attr-defined]
    assert looks_up_by_string(method, method=True) == ATTRIBUTE_LOOKUP

"""Discovery: which functions are transformed, with which bodies, and why some are skipped."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.constants import EMPTY_GENERATOR, bodies_for_kinds
from lsp_server.extreme.discover import discover, functions_of_source, source_files
from lsp_server.rts.analysis_cache import units_by_text
from lsp_server.rts.units import source_units
from tests.support.reks import run_pytest


def _functions(source: str, patterns: tuple[str, ...] = ()) -> dict[str, tuple[str, object]]:
    found = functions_of_source("m.py", textwrap.dedent(source), patterns)
    return {f.qualname: (f.skip, f.annotated_bodies) for f in found}


def test_example_skips_exactly_the_trivial_functions(example: Path) -> None:
    functions, errors = discover(example, source_files(example))
    assert errors == {}
    skipped = {f.qualname for f in functions if f.skip}
    assert skipped == {"VersionedSet.version", "VersionedSet.size", "VersionedSet.contains"}


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("def f(self):\n    pass\n", "empty body"),
        ('def f():\n    """Doc."""\n    ...\n', "empty body"),
        ("def f(x):\n    raise NotImplementedError('no')\n", "raises NotImplementedError"),
        (
            "import abc\nclass A(abc.ABC):\n    @abc.abstractmethod\n    def f(self):\n"
            "        return 1\n",
            "abstract method",
        ),
        (
            "class A:\n    def __repr__(self):\n        return f'A({self.x!r}, {self.y})'\n",
            "__repr__",
        ),
        (
            "from warnings import deprecated\n@deprecated('use g')\ndef f(a, b):\n"
            "    c = a + b\n    return c * 2\n",
            "deprecated",
        ),
        (
            "import warnings\ndef f(a):\n    warnings.warn('old', DeprecationWarning)\n"
            "    return a + 1\n",
            "deprecated",
        ),
        ("class A:\n    def set_x(self, x):\n        self._x = x\n", "setter of one attribute"),
        ("class A:\n    @property\n    def x(self):\n        return self._x\n", "getter"),
        ("def f(a, b):\n    return helper(a, b.c)\n", "delegates to one call"),
        ("def f(a):  # reks: no-extreme\n    x = a\n    return x\n", "no-extreme"),
    ],
)
def test_skip_rules(source: str, reason: str) -> None:
    found = functions_of_source("m.py", source)
    assert reason in found[-1].skip


def test_functions_that_call_project_code_are_not_trivial() -> None:
    found = _functions(
        """
        def helper(x):
            y = x + 1
            return y

        class A:
            def uses_helper(self, x):
                return helper(x) + 1
            def two_attributes(self):
                return self.a + self.b
            def counter(self):
                self.n += 1
        """
    )
    assert found["A.uses_helper"][0] == ""
    assert found["A.two_attributes"][0] == ""
    assert found["A.counter"][0] == ""
    assert found["helper"][0] == ""


def test_user_patterns() -> None:
    source = "def keep(a):\n    b = a\n    return b\n\ndef drop_me(a):\n    b = a\n    return b\n"
    found = _functions(source, ("drop_*",))
    assert found["keep"][0] == ""
    assert "drop_*" in str(found["drop_me"][0])


def test_bodies_from_annotations() -> None:
    found = _functions(
        """
        from typing import Iterator, Optional

        def a(x) -> bool:
            y = x
            return bool(y)
        def b(x) -> Optional[int]:
            y = x
            return y
        def c(x) -> "list[str]":
            y = x
            return y
        def d(x) -> None:
            y = x
            print(y)
        def e(x) -> Iterator[int]:
            y = x
            yield y
        def f(x) -> float | str:
            y = x
            return y
        def g(x) -> "Widget":
            y = x
            return y
        def h(x):
            y = x
            return y
        """
    )
    assert found["a"][1] == ("return True", "return False")
    assert found["b"][1] == ("return None", "return 0", "return 1")
    assert found["c"][1] == ("return []",)
    assert found["d"][1] == ("pass",)
    assert found["e"][1] == (EMPTY_GENERATOR,)
    assert found["f"][1] == ("return 0.0", "return 0.1", 'return ""', 'return "A"')
    assert found["g"][1] == ("return None",)
    assert found["h"][1] is None  # decided from the values it returns under test


def test_bodies_from_observed_kinds() -> None:
    assert bodies_for_kinds({"none"}) == ["pass"]
    assert bodies_for_kinds(set()) == ["pass"]
    assert bodies_for_kinds({"bool"}) == ["return True", "return False"]
    assert bodies_for_kinds({"none", "str"}) == ["return None", 'return ""', 'return "A"']
    assert bodies_for_kinds({"other"}) == ["return None"]
    assert bodies_for_kinds({"tuple", "dict"}) == ["return {}", "return ()"]


def test_source_files_leave_out_tests_and_environments(tmp_path: Path) -> None:
    for name in ("pkg/a.py", "pkg/test_a.py", "tests/test_b.py", "conftest.py", "venv/lib/x.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    (tmp_path / "venv" / "pyvenv.cfg").write_text("")
    assert source_files(tmp_path) == ["pkg/a.py"]
    with pytest.raises(FileNotFoundError):
        source_files(tmp_path, [tmp_path / "missing"])


def test_property_setter_is_not_a_second_function() -> None:
    found = functions_of_source(
        "m.py",
        textwrap.dedent(
            """
            class A:
                @property
                def x(self):
                    value = self._x
                    return value * 2

                @x.setter
                def x(self, value):
                    self._x = value
            """
        ),
    )
    assert [(f.qualname, f.line, f.first_line, f.skip) for f in found] == [("A.x", 4, 3, "")]


def test_a_file_with_invalid_escapes_is_analysed_without_repeating_its_warning() -> None:
    """Python names the file when it imports it; reks's own parses must stay silent, or
    ``reks extreme`` prints ``<unknown>:2: SyntaxWarning`` (issue 16, item 4)."""
    import warnings

    from lsp_server.extreme.code_swap import function_defs
    from lsp_server.refactor.actions import offers_at

    source = 'PATTERN = "\\d+"\n\n\ndef get():\n    return PATTERN\n'
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert [f.qualname for f in functions_of_source("versioneer.py", source)] == ["get"]
        assert list(function_defs(source, "versioneer.py")) == [(4, "get")]
        assert offers_at(source, source.index("get"))
    assert [f"{w.filename}:{w.lineno}: {w.message}" for w in seen] == []


def test_discovery_takes_a_reks_sessions_kept_analysis_and_parses_only_what_changed_since(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    """A target a ``pytest --reks`` session analysed (and kept under ``.reks/analysis``) is
    discovered without parsing it again; once edited, it is parsed from its new text."""
    test = "from shapes import Square\n\ndef test_area():\n    assert Square(2).area() == 4\n"
    root = make_project({"test_shapes.py": test})
    # The folder in a comment: no other test memoizes the same source text.
    original = (
        f"# {root}\nclass Square:\n    def __init__(self, side):\n        self.side = side\n\n"
        "    def area(self):\n        return self.side * self.side\n"
    )
    (root / "shapes.py").write_text(original)
    session = run_pytest(root, "--reks", "-p", "no:cacheprovider")
    assert session.returncode == 0, session.stdout

    units_by_text.cache_clear()
    functions, errors = discover(root, ["shapes.py"])
    assert (errors, [f.qualname for f in functions]) == ({}, ["Square.__init__", "Square.area"])
    assert units_by_text.cache_info().misses == 0  # kept, not parsed
    assert functions[1].checksum == source_units("shapes.py", original).checksums["Square.area"]

    edited = original + "\n    def perimeter(self):\n        return 4 * self.side\n"
    (root / "shapes.py").write_text(edited)
    units_by_text.cache_clear()
    functions, errors = discover(root, ["shapes.py"])
    assert units_by_text.cache_info().misses == 1  # the new text is parsed
    assert [f.qualname for f in functions] == ["Square.__init__", "Square.area", "Square.perimeter"]
    assert functions[2].checksum == source_units("shapes.py", edited).checksums["Square.perimeter"]

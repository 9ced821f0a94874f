"""State observation, code swapping and test instrumentation, in process."""

from __future__ import annotations

import ast
import dataclasses
import enum
import textwrap

import pytest

from lsp_server.extreme.code_swap import copy_function
from lsp_server.extreme.reneri.edit import EditError, insert_assertion
from lsp_server.extreme.reneri.instrument import RECORDER, instrument
from lsp_server.extreme.reneri.model import Assertion
from lsp_server.extreme.reneri.observe import observe
from lsp_server.extreme.reneri.target_wrapper import DISPATCH, wrapper_code


class Color(enum.Enum):
    RED = 1


@dataclasses.dataclass
class Point:
    x: int
    tags: list[str]


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self) -> None:
        self.a = None
        self.b = Point(1, [])


class Holder:
    def __init__(self) -> None:
        self._items = {1: 2}
        self.name = "n"

    @property
    def size(self) -> int:
        return len(self._items)


def observed(value: object) -> dict[str, str]:
    out: dict[str, str] = {}
    observe(value, out)
    return out


def test_observation_follows_the_papers_definitions() -> None:
    assert observed(None) == {"": "None"}
    assert observed(3) == {"": "3"}
    assert observed(b"x") == {"": "b'x'"}
    assert observed(Color.RED) == {"": "<enum Color.RED>"}
    assert observed([1, 2, 3]) == {"": "<type list>", "[len]": "3"}
    assert observed(Point(2, ["a"])) == {
        "": "<type Point>",
        ".x": "2",
        ".tags": "<type list>",
        ".tags[len]": "1",
    }
    # __slots__, one level only: b's own fields are not observed.
    assert observed(Slotted()) == {"": "<type Slotted>", ".a": "None", ".b": "<type Point>"}
    # Public properties count as attributes; private ones of __dict__ too.
    assert observed(Holder()) == {
        "": "<type Holder>",
        "._items": "<type dict>",
        "._items[len]": "1",
        ".name": "'n'",
        ".size": "1",
    }
    # Addresses in text never reach an observation.
    assert observed(repr(object())) == observed(repr(object()))


def _closure_and_super() -> type:
    offset = 10

    class Base:
        def value(self, x: int = 1) -> int:
            return x

    class Child(Base):
        def value(self, x: int = 1) -> int:
            return super().value(x) + offset

    return Child


def test_wrapper_replaces_code_of_a_closure_that_uses_super() -> None:
    child = _closure_and_super()
    method = child.__dict__["value"]
    assert set(method.__code__.co_freevars) == {"__class__", "offset"}
    original = copy_function(method)
    calls: list[tuple[object, ...]] = []

    def dispatch(index: int, args: tuple[object, ...], kwargs: dict[str, object]) -> object:
        calls.append(args[1:])
        return original(*args, **kwargs)

    method.__globals__[DISPATCH] = dispatch
    saved = method.__code__
    try:
        method.__code__ = wrapper_code(method, 0)
        assert child().value() == 11  # defaults, closure and super() still work
        assert child().value(5) == 15
    finally:
        method.__code__ = saved
        del method.__globals__[DISPATCH]
    assert calls == [(), (5,)]


def test_instrumentation_observes_calls_receivers_and_assigned_names() -> None:
    source = textwrap.dedent(
        """
        def test_it(tmp_path):
            s = make()
            s.add(x, key=y)
            with open(tmp_path) as f:
                f.read()
            assert s.size > 0
        """
    )
    funcdef = ast.parse(source).body[0]
    assert isinstance(funcdef, ast.FunctionDef)
    new, locations = instrument(funcdef, source.splitlines())
    by_text = {location.text: location for location in locations}
    assert by_text["s.add(x, key=y)"].roles == ["value", "s", "x", "y"]
    assert by_text["s"].roles == ["value"]  # the assigned name, after the assignment
    assert by_text["f.read()"].indent == "        "
    assert by_text["s.size"].in_assert and by_text["s.size"].assertable
    assert not by_text["open(tmp_path)"].assertable  # a ``with`` header
    assert ast.unparse(new).count(RECORDER) == len(locations)
    compile(ast.Module(body=[new], type_ignores=[]), "t.py", "exec")


def test_insert_assertion_keeps_the_file_valid() -> None:
    source = "def test_x():\n    s = 1\n    assert s\n"
    assertion = Assertion("t.py", 2, "    assert s == 1", "s", "1")
    assert insert_assertion(source, assertion).splitlines()[2] == "    assert s == 1"
    with pytest.raises(EditError):
        insert_assertion(source, Assertion("t.py", 9, "    assert s == 1", "s", "1"))
    with pytest.raises(EditError):
        insert_assertion(source, Assertion("t.py", 1, "assert s == 1", "s", "1"))


def test_observation_never_raises() -> None:
    class Hostile:
        def __init__(self) -> None:
            self.ok = 1

        @property
        def broken(self) -> int:
            raise RuntimeError("no")

        def __len__(self) -> int:
            raise TypeError("no")

    assert observed(Hostile()) == {
        "": "<type test_observation_never_raises.<locals>.Hostile>",
        ".ok": "1",
    }


def test_reports_render_every_diagnosis() -> None:
    from lsp_server.extreme.model import Transformation
    from lsp_server.extreme.reneri.model import Diagnosis, Difference
    from lsp_server.extreme.reneri.report import shares, to_markdown, to_text

    t = Transformation("m.py", "C.f", 3, "pass")
    weak = Diagnosis(
        t,
        "weak-oracle",
        "Add it.",
        [Difference("propagation", "t.py::test", "t.py", 6, "s.a | b", "1", "0")],
        assertion=Assertion("t.py", 6, "    assert s.a == 1", "s.a", "1"),
    )
    none = Diagnosis(t, "no-infection", "New input.")
    text = to_text([weak, none])
    assert "insert after t.py:6: assert s.a == 1" in text
    assert text.endswith("2 undetected transformation(s): 1 no-infection, 1 weak-oracle")
    markdown = to_markdown([weak, none])
    assert "`s.a \\| b`" in markdown and "**no-infection**: New input." in markdown
    assert shares([weak, none]) == {
        "no-infection": 0.5,
        "no-propagation": 0.0,
        "weak-oracle": 0.5,
    }


def test_text_with_an_address_is_compared_but_never_asserted() -> None:
    first, second = observed(repr(object())), observed(repr(object()))
    assert first == second
    assert first[""].startswith("<str ")  # not a literal: no assertion can be built from it

"""A dunder method's annotations (and default values) are seen by the code that ran it, by
code that reads signatures, annotations or help (``inspect.signature``,
``__annotations__``, ``typing.get_type_hints``, ``pydoc``) of it or of its class, by
library code handed it or its class at import, and by the import itself when evaluating
one may raise or has effects; not by every test that refers to it or its class. tenacity
ae2d75e changed ``multiplier: int | float`` to ``float`` in ``wait_exponential.__init__``:
every test ran (153) where testmon ran 92, since every test ran some
``super().__init__()`` and so read the name ``__init__``. An ordinary function's
annotations stay in its header: a test may hand it to a library that reads them
(``singledispatch``'s ``register``). Real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

WAITS = """
import dataclasses

VERSION: str = "1.0"  # stored as the module is imported: no read of annotations


@dataclasses.dataclass
class State:  # its body stores annotations as the module is imported: it reads none
    attempt: int = 0


class Base:
    def __init__(self) -> None:
        self.ready = True


class Exponential(Base):
    def __init__(self, multiplier: int | float = 1) -> None:
        super().__init__()
        self.multiplier = multiplier

    def compute(self, attempt: int) -> float:
        return self.multiplier * 2**attempt


class Fixed(Base):
    def __init__(self) -> None:
        super().__init__()
        self.wait = 1
"""


@pytest.fixture
def waits(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "waits.py", WAITS)
    write(
        pytester,
        "test_waits.py",
        """
        import inspect
        import typing


        def test_exponential():
            import waits

            assert waits.Exponential(3).compute(1) == 6


        def test_fixed():
            import waits

            assert waits.Fixed().wait == 1


        def test_signature():
            import waits

            hint = inspect.signature(waits.Exponential.compute).parameters["attempt"]
            assert hint.annotation is int


        def test_hints():
            import waits

            assert typing.get_type_hints(waits.Exponential.compute)["attempt"] is int
        """,
    )
    assert run(pytester) == {"test_exponential", "test_fixed", "test_signature", "test_hints"}
    return pytester


def test_changed_annotations_select_the_runners_not_every_reader_of_the_name(
    waits: pytest.Pytester,
) -> None:
    # test_fixed ran ``super().__init__()``: it read the name ``__init__``, which finds
    # ``Exponential.__init__`` too, but it never ran it nor read a signature.
    edit(waits, "waits.py", "multiplier: int | float = 1", "multiplier: float = 1")
    assert run(waits) == {"test_exponential", "test_signature", "test_hints"}
    edit(waits, "waits.py", "-> float:", "-> int | float:")
    assert run(waits) == {"test_exponential", "test_signature", "test_hints"}


def test_signature_and_hint_readers_see_a_changed_annotation(waits: pytest.Pytester) -> None:
    edit(waits, "waits.py", "attempt: int)", "attempt: float)")
    ran, failed = ran_and_failed(waits)
    assert ran == {"test_exponential", "test_signature", "test_hints"}
    assert failed == {"test_signature", "test_hints"}


def test_an_annotation_that_raises_at_import_selects_every_importer(
    waits: pytest.Pytester,
) -> None:
    edit(waits, "waits.py", "multiplier: int | float = 1", "multiplier: Missing = 1")
    # The import fails: every test importing the module runs (and fails).
    assert run(waits) == {"test_exponential", "test_fixed", "test_signature", "test_hints"}


def test_an_annotation_with_a_call_runs_at_import_for_every_importer(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "registry.py",
        """
        SEEN = []


        def note(name):
            SEEN.append(name)
            return int
        """,
    )
    write(
        pytester,
        "core.py",
        """
        from registry import note


        def inc(x: note("inc")) -> int:
            return x + 1


        def dec(x: int) -> int:
            return x - 1
        """,
    )
    write(
        pytester,
        "test_core.py",
        """
        import core
        import registry


        def test_dec():
            assert core.dec(1) == 0


        def test_seen():
            assert registry.SEEN == ["inc"]
        """,
    )
    assert run(pytester) == {"test_dec", "test_seen"}
    edit(pytester, "core.py", 'note("inc")', 'note("increment")')
    assert "test_seen" in run(pytester)


def test_a_decorator_reading_annotations_at_import_selects_the_callers_of_the_wrapper(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "convert.py",
        """
        import functools
        import inspect


        def converting(func):
            kinds = [p.annotation for p in inspect.signature(func).parameters.values()]

            @functools.wraps(func)
            def wrapper(*args):
                return func(*(kind(a) for kind, a in zip(kinds, args)))

            return wrapper
        """,
    )
    write(
        pytester,
        "core.py",
        """
        from convert import converting


        @converting
        def inc(x: int):
            return x + 1


        def dec(x):
            return x - 1
        """,
    )
    write(
        pytester,
        "test_core.py",
        """
        import core


        def test_inc():
            assert core.inc("2") == 3


        def test_dec():
            assert core.dec(1) == 0
        """,
    )
    assert run(pytester) == {"test_inc", "test_dec"}
    edit(pytester, "core.py", "def inc(x: int)", "def inc(x: str)")
    assert "test_inc" in run(pytester)  # it fails: "2" + 1


def test_singledispatch_registered_by_annotation_selects_the_callers(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "core.py",
        """
        import functools


        @functools.singledispatch
        def describe(value):
            return "other"


        @describe.register
        def _(value: int):
            return "number"


        def plain(x):
            return x
        """,
    )
    write(
        pytester,
        "test_core.py",
        """
        import core


        def test_describe():
            assert core.describe(1) == "number"
        """,
    )
    assert run(pytester) == {"test_describe"}
    edit(pytester, "core.py", "def _(value: int)", "def _(value: str)")
    assert run(pytester) == {"test_describe"}  # it fails: 1 is "other" now


def test_a_class_instantiated_at_collection_whose_method_reads_its_annotations(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "figures.py",
        """
        class Shape:
            def __init__(self, size):
                self.size = size

            def kinds(self, scale: int) -> dict:
                return dict(type(self).kinds.__annotations__)


        class Other:
            def kinds(self):
                return {}
        """,
    )
    write(
        pytester,
        "test_figures.py",
        """
        import figures

        KINDS = figures.Shape(2).kinds(1)


        def test_kinds():
            assert KINDS["scale"] is int


        def test_other():
            assert figures.Other().kinds() == {}
        """,
    )
    assert run(pytester) == {"test_kinds", "test_other"}
    edit(pytester, "figures.py", "scale: int)", "scale: float)")
    assert "test_kinds" in run(pytester)  # it fails: the annotation is float


CLASSES = """
class Waits:
    def __init__(self, multiplier: int | float = 1) -> None:
        self.multiplier = multiplier

    def __call__(self, attempt: int) -> float:
        return self.multiplier * attempt
"""


@pytest.fixture
def classes(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "waits.py", CLASSES)
    # A library handed the class at import: pydoc shows ``__init__``'s signature.
    write(
        pytester,
        "helptext.py",
        """
        import pydoc

        import waits

        DOC = pydoc.render_doc(waits.Waits, renderer=pydoc.plaintext)
        """,
    )
    write(
        pytester,
        "test_waits.py",
        """
        import inspect


        def test_call():
            import waits

            assert waits.Waits(2)(3) == 6


        def test_name():
            import waits

            assert waits.Waits.__name__ == "Waits"


        def test_signature():
            import waits

            assert str(inspect.signature(waits.Waits)) == "(multiplier: int | float = 1) -> None"
        """,
    )
    # Its own file: a test file's static imports (``import helptext`` in a test function
    # too) are every one of its tests' modules, with the names they hand to libraries.
    write(
        pytester,
        "test_help.py",
        """
        def test_help():
            import helptext

            assert "Waits(multiplier: int | float = 1)" in helptext.DOC
        """,
    )
    assert run(pytester) == {"test_call", "test_name", "test_signature", "test_help"}
    return pytester


def test_a_dunder_method_header_in_its_class_unit_selects_runners_and_readers(
    classes: pytest.Pytester,
) -> None:
    # A dunder's header is part of its class's unit (Python finds it without its name):
    # test_name reads the class, never ``__init__``'s annotations or default values.
    edit(classes, "waits.py", "multiplier: int | float = 1", "multiplier: float = 1")
    ran, failed = ran_and_failed(classes)
    assert ran == {"test_call", "test_signature", "test_help"}
    assert failed == {"test_signature", "test_help"}
    edit(classes, "waits.py", "multiplier: float = 1", "multiplier: float = 2")
    ran, failed = ran_and_failed(classes)
    assert ran == {"test_call", "test_signature", "test_help"}
    assert failed == {"test_signature", "test_help"}


def test_a_function_handed_to_a_library_as_a_test_runs_keeps_its_annotations_in_its_header(
    pytester: pytest.Pytester,
) -> None:
    # singledispatch reads the annotation as the test registers the function: no code of
    # the project reads it, and the function never ran. Only a dunder's annotations leave
    # its header (Python calls it; code hardly hands one to a library).
    write(
        pytester,
        "core.py",
        """
        import functools


        @functools.singledispatch
        def describe(value):
            return "other"


        def number(value: str):
            return "number"
        """,
    )
    write(
        pytester,
        "test_core.py",
        """
        import core


        def test_register():
            core.describe.register(core.number)
            assert core.describe(1) == "other"
        """,
    )
    assert run(pytester) == {"test_register"}
    edit(pytester, "core.py", "value: str", "value: int")
    assert ran_and_failed(pytester) == ({"test_register"}, {"test_register"})


def test_help_on_a_class_as_a_test_runs_shows_its_dunder_signatures(
    classes: pytest.Pytester,
) -> None:
    write(
        classes,
        "test_pydoc.py",
        """
        import pydoc


        def test_help_now():
            import waits

            text = pydoc.render_doc(waits.Waits, renderer=pydoc.plaintext)
            assert "Waits(multiplier: int | float = 1)" in text
        """,
    )
    assert run(classes) == {"test_help_now"}
    edit(classes, "waits.py", "multiplier: int | float = 1", "multiplier: float = 1")
    ran, failed = ran_and_failed(classes)
    assert ran == {"test_call", "test_signature", "test_help", "test_help_now"}
    assert failed == {"test_signature", "test_help", "test_help_now"}


def test_a_dunder_default_with_a_call_runs_at_import_for_every_importer(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester,
        "registry.py",
        """
        SEEN = []


        def note(name):
            SEEN.append(name)
            return 1
        """,
    )
    write(
        pytester,
        "figures.py",
        """
        from registry import note


        class Shape:
            def __init__(self, size=note("shape")):
                self.size = size


        class Other:
            def __init__(self, size: int = 2) -> None:
                self.size = size
        """,
    )
    write(
        pytester,
        "test_figures.py",
        """
        import registry
        import figures


        def test_other():
            assert figures.Other().size == 2


        def test_seen():
            assert registry.SEEN == ["shape"]
        """,
    )
    assert run(pytester) == {"test_other", "test_seen"}
    edit(pytester, "figures.py", 'note("shape")', 'note("square")')
    ran, failed = ran_and_failed(pytester)
    assert "test_seen" in ran
    assert failed == {"test_seen"}


FIELDED = WAITS.replace(
    "    attempt: int = 0\n",
    "    attempt: int = 0\n    actions: list = dataclasses.field(default_factory=list)\n",
)

TOP_IMPORT = """
import waits


def test_exponential():
    assert waits.Exponential(3).compute(1) == 6


def test_fixed():
    assert waits.Fixed().wait == 1
"""


def test_an_annotated_class_body_run_at_collection_reads_no_annotations(
    pytester: pytest.Pytester,
) -> None:
    # Imported at collection, ``State``'s body runs for every test of the file; a class
    # calling at import (``field``) is in the module unit, its body's reads the module's:
    # storing its own annotations (tenacity's ``IterState``) made each test an annotation
    # reader, which sees every method's annotations (153 tests ran at tenacity ae2d75e).
    write(pytester, "waits.py", FIELDED)
    write(pytester, "test_top.py", TOP_IMPORT)
    assert run(pytester) == {"test_exponential", "test_fixed"}
    edit(pytester, "waits.py", "multiplier: int | float = 1", "multiplier: float = 1")
    assert run(pytester) == {"test_exponential"}


def test_a_class_body_reading_its_annotations_at_collection_still_reads_them(
    pytester: pytest.Pytester,
) -> None:
    # Guard: a body that reads ``__annotations__`` (not only stores into it) keeps the read.
    body = "    attempt: int = 0\n"
    write(
        pytester, "waits.py", FIELDED.replace(body, body + "    FIELDS = list(__annotations__)\n")
    )
    write(pytester, "test_top.py", TOP_IMPORT)
    assert run(pytester) == {"test_exponential", "test_fixed"}
    edit(pytester, "waits.py", "multiplier: int | float = 1", "multiplier: float = 1")
    assert run(pytester) == {"test_exponential", "test_fixed"}

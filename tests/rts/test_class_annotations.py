"""Which tests see a class's annotations (``C.__annotations__``): an annotated attribute
added to a plain class in a module with ``from __future__ import annotations`` is a new
member; it changes what the annotations readers (``__annotations__``,
``typing.get_type_hints``, ``inspect.get_annotations``) see, not the class's other users,
on real pytest sessions."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "signer.py",
        """
        from __future__ import annotations


        class Signer:
            kind = "JWT"
            level = 1

            def sign(self, data: str) -> str:
                return self.kind + ":" + data
        """,
    )
    write(
        pytester,
        "test_signer.py",
        """
        import inspect
        from typing import get_type_hints

        from signer import Signer


        def test_sign():
            assert Signer().sign("x") == "JWT:x"


        def test_annotations():
            assert isinstance(Signer.__annotations__, dict)


        def test_type_hints():
            assert isinstance(get_type_hints(Signer), dict)


        def test_get_annotations():
            assert isinstance(inspect.get_annotations(Signer), dict)
        """,
    )
    assert len(run(pytester)) == 4
    return pytester


def test_a_new_annotated_attribute_selects_the_annotation_readers_only(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "signer.py",
        '    kind = "JWT"\n',
        '    kind = "JWT"\n    extensions: set[str] = {"b64"}\n',
    )
    assert run(project) == {"test_annotations", "test_type_hints", "test_get_annotations"}


def test_a_changed_annotation_of_an_attribute_selects_the_annotation_readers(
    project: pytest.Pytester,
) -> None:
    edit(project, "signer.py", "level = 1", "level: int = 1")
    assert run(project) == {"test_annotations", "test_type_hints", "test_get_annotations"}
    edit(project, "signer.py", "level: int = 1", "level: object = 1")
    assert run(project) == {"test_annotations", "test_type_hints", "test_get_annotations"}

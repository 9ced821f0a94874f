"""Bindings under ``if TYPE_CHECKING:`` without ``else``, on real pytest sessions: the
block never runs at import, so editing it selects no importer (marshmallow b1418d26 changed
``SchemaType = typing.Type[Schema]`` to ``type[Schema]`` in ``class_registry``'s block,
which ``register``'s header names in a string annotation: all 1,231 tests ran). Who runs it
still selects: a test that reloads the module with ``typing.TYPE_CHECKING`` patched, one that
reads the source, and every importer once the block runs at import."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "pkg/__init__.py",
        """
        from pkg.schema import Schema
        """,
    )
    write(
        pytester,
        "pkg/registry.py",
        """
        from __future__ import annotations

        import typing

        if typing.TYPE_CHECKING:
            from pkg import Schema

            SchemaType = typing.Type[Schema]

        _registry = {}  # type: dict[str, list[SchemaType]]


        def register(name: str, cls: SchemaType) -> None:
            _registry[name] = cls


        def get_class(name: str) -> SchemaType:
            return _registry[name]
        """,
    )
    write(
        pytester,
        "pkg/schema.py",
        """
        from pkg import registry


        class SchemaMeta(type):
            def __init__(cls, name, bases, attrs):
                super().__init__(name, bases, attrs)
                registry.register(name, cls)


        class Schema(metaclass=SchemaMeta):
            def dump(self):
                return 1
        """,
    )
    write(
        pytester,
        "test_schema.py",
        """
        from pkg import Schema


        class Mine(Schema):
            pass


        def test_dump():
            assert Mine().dump() == 1
        """,
    )
    write(
        pytester,
        "test_registry.py",
        """
        from pkg import registry


        def test_registered():
            assert registry.get_class("Schema").__name__ == "Schema"
        """,
    )
    assert run(pytester) == {"test_dump", "test_registered"}
    return pytester


def test_a_type_checking_alias_edit_selects_no_test(project: pytest.Pytester) -> None:
    edit(project, "pkg/registry.py", "typing.Type[Schema]", "type[Schema]")
    assert run(project) == set()


def test_a_type_checking_block_made_to_run_selects_a_reader_of_its_names(
    project: pytest.Pytester,
) -> None:
    write(
        project,
        "test_alias.py",
        """
        from pkg import registry


        def test_no_alias_at_run_time():
            assert not hasattr(registry, "SchemaType")
        """,
    )
    assert run(project) == {"test_no_alias_at_run_time"}
    edit(project, "pkg/registry.py", "if typing.TYPE_CHECKING:", "if not typing.TYPE_CHECKING:")
    edit(project, "pkg/registry.py", "    from pkg import Schema\n\n", "    Schema = object\n\n")
    ran, failed = ran_and_failed(project)
    assert failed == {"test_no_alias_at_run_time"} and failed <= ran


def test_a_reload_as_a_type_checker_selects_the_reloading_test(
    project: pytest.Pytester,
) -> None:
    write(
        project,
        "test_checker.py",
        """
        import importlib
        import typing

        from pkg import registry


        def test_reloaded_as_a_checker(monkeypatch):
            monkeypatch.setattr(typing, "TYPE_CHECKING", True)
            importlib.reload(registry)
            assert registry.SchemaType is not None
        """,
    )
    assert run(project) == {"test_reloaded_as_a_checker"}
    edit(project, "pkg/registry.py", "typing.Type[Schema]", "typing.Type[Missing]")
    ran, failed = ran_and_failed(project)
    assert failed == {"test_reloaded_as_a_checker"} and failed <= ran


def test_a_source_reader_of_the_block_is_selected(project: pytest.Pytester) -> None:
    write(
        project,
        "test_source.py",
        """
        import inspect

        from pkg import registry


        def test_source():
            assert "typing.Type[Schema]" in inspect.getsource(registry)
        """,
    )
    assert run(project) == {"test_source"}
    edit(project, "pkg/registry.py", "typing.Type[Schema]", "type[Schema]")
    ran, failed = ran_and_failed(project)
    assert failed == {"test_source"} and failed <= ran

"""A set of names a module tests the names of a standard-library module against at import
(``rts.namespace_filters``), then deletes (``rts.deleted_names``), on real pytest sessions.
toolz's ``curried/operator.py`` curries every function of ``operator`` but those its
``IGNORE`` set lists; 688a812 listed two more that only Python 3.14's ``operator`` has, and
all 204 tests ran (testmon: 2), then 20: those looking names up by string."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

OPS = """
import operator

from wrap import curry

IGNORE = {"abs", "index"}
locals().update(
    {name: f if name in IGNORE else curry(f) for name, f in vars(operator).items() if callable(f)}
)

del IGNORE
del curry
"""

ALL = {"test_helper", "test_abs", "test_add", "test_names"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "wrap.py", "def curry(f):\n    return ('curried', f)\n")
    write(pytester, "ops.py", OPS)
    write(pytester, "lib.py", "import ops\n\n\ndef helper():\n    return 1\n")
    write(
        pytester,
        "test_ops.py",
        """
        import operator


        def test_helper():
            import lib

            assert lib.helper() == 1


        def test_abs():
            import ops

            assert ops.abs is operator.abs


        def test_add():
            import ops

            assert ops.add == ("curried", operator.add)


        def test_names():
            import ops

            assert "add" in vars(ops)
        """,
    )
    assert run(pytester) == ALL
    return pytester


def test_a_member_the_module_lacks_selects_nothing(project: pytest.Pytester) -> None:
    edit(project, "ops.py", '"index"}', '"index", "no_such_function"}')
    assert run(project) == set()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"index"}', '"index", "add"}'),  # test_add fails
        ('{"abs", ', "{"),  # test_abs fails
    ],
)
def test_a_member_the_module_has_selects_every_importer(
    project: pytest.Pytester, old: str, new: str
) -> None:
    edit(project, "ops.py", old, new)
    assert run(project) == ALL


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # Names of a project module: its names are the project's to change.
        ("import operator\n", "import operator\nimport wrap\n"),
        # The set read otherwise as well.
        ("\ndel IGNORE", "\nprint(sorted(IGNORE))\ndel IGNORE"),
        # Filled after its display.
        ("\nlocals()", "\nIGNORE.add('neg')\nlocals()"),
        # ``vars`` is the module's own.
        ("import operator\n", "import operator\n\nvars = dict\n"),
    ],
)
def test_other_reads_keep_the_set_a_read_of_every_importer(
    project: pytest.Pytester, old: str, new: str
) -> None:
    edit(project, "ops.py", old, new)
    if "import wrap" in new:
        edit(project, "ops.py", "vars(operator)", "vars(wrap)")
    run(project)
    edit(project, "ops.py", '"index"}', '"index", "no_such_function"}')
    assert run(project) == ALL


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # Left bound: a lookup by string after the import finds it.
        ("\ndel IGNORE\n", "\n"),
        # Looked up by string while bound.
        ("\ndel IGNORE", "\nprint(sorted(globals()))\ndel IGNORE"),
        # Deleted on some path only.
        ("\ndel IGNORE\n", "\nif len(IGNORE) > 1:\n    del IGNORE\n"),
    ],
)
def test_a_set_a_lookup_by_string_may_find_selects_its_tests(
    project: pytest.Pytester, old: str, new: str
) -> None:
    edit(project, "ops.py", old, new)
    run(project)
    edit(project, "ops.py", '"index"}', '"index", "no_such_function"}')
    assert "test_names" in run(project)

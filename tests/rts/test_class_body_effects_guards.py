"""Where splitting a class body with effects into members could hide a change from a test,
the class's plain bindings stay in the module unit (``rts.loose_assignments``), or their
order and what they read are dependencies: each guard here edits a binding of such a class
and checks that the tests whose outcome may change run."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

# Each test imports the module when it runs: a module that fails to import fails the
# tests that run, and only those.
_TESTS = """
def test_listed():
    import visitor

    assert visitor.LISTED == ["A"]


def test_alias():
    import visitor

    assert visitor.Visitor.ALIAS(None) == "handled"


def test_other():
    import visitor

    assert visitor.Visitor.extras == set()
"""
_EVERY = {"test_listed", "test_alias", "test_other"}


def _project(pytester: pytest.Pytester, source: str, *more: tuple[str, str]) -> None:
    write(pytester, "visitor.py", source)
    write(pytester, "test_visitor.py", _TESTS)
    for path, text in more:
        write(pytester, path, text)
    assert run(pytester, flag="--reks-all") == _EVERY


_BODY = """
    extras = set()
    if os.environ.get("VISITOR_EXTRAS"):
        extras.add("extra")

    def handle(self):
        return "handled"

    ALIAS = handle
    A = 1
"""


def test_a_class_body_listing_its_namespace_stays_whole(pytester: pytest.Pytester) -> None:
    source = (
        "import os\n\n\nclass Visitor:"
        + _BODY
        + (
            '    LISTED = [k for k in locals() if k.isupper() and k != "ALIAS"]\n\n\n'
            "LISTED = Visitor.LISTED\n"
        )
    )
    _project(pytester, source)
    edit(pytester, "visitor.py", "    A = 1\n", "    A = 1\n    B = 2\n")
    assert run(pytester) == _EVERY


def test_a_metaclass_seeing_the_namespace_keeps_the_class_whole(
    pytester: pytest.Pytester,
) -> None:
    source = (
        "import os\n\nLISTED = []\n\n\nclass Meta(type):\n"
        "    def __new__(mcls, name, bases, namespace):\n"
        '        LISTED.extend(k for k in namespace if k.isupper() and k != "ALIAS")\n'
        "        return super().__new__(mcls, name, bases, namespace)\n\n\n"
        "class Visitor(metaclass=Meta):" + _BODY
    )
    _project(pytester, source)
    edit(pytester, "visitor.py", "    A = 1\n", "    A = 1\n    B = 2\n")
    assert "test_listed" in run(pytester)


def test_a_base_hook_listing_the_members_sees_a_new_one(pytester: pytest.Pytester) -> None:
    source = (
        "import os\n\nLISTED = []\n\n\nclass Base:\n"
        "    def __init_subclass__(cls, **kwargs):\n"
        "        super().__init_subclass__(**kwargs)\n"
        '        LISTED.extend(k for k in vars(cls) if k.isupper() and k != "ALIAS")\n\n\n'
        "class Visitor(Base):" + _BODY
    )
    _project(pytester, source)
    edit(pytester, "visitor.py", "    A = 1\n", "    A = 1\n    B = 2\n")
    assert "test_listed" in run(pytester)


def test_an_own_subclass_hook_keeps_the_class_whole(pytester: pytest.Pytester) -> None:
    hook = (
        "\n    def __init_subclass__(cls, **kwargs):\n"
        '        LISTED.extend(k for k in dir(cls) if k.isupper() and k != "ALIAS")\n'
    )
    source = "import os\n\nLISTED = []\n\n\nclass Visitor:" + _BODY + hook
    sub = ("sub.py", "from visitor import Visitor\n\n\nclass Sub(Visitor):\n    pass\n")
    _project(pytester, source, sub)
    edit(pytester, "test_visitor.py", "    import visitor\n", "    import sub, visitor\n")
    assert run(pytester) == _EVERY
    edit(pytester, "visitor.py", "    A = 1\n", "    A = 1\n    B = 2\n")
    assert "test_listed" in run(pytester)


def test_a_class_decorator_listing_the_members_sees_a_new_one(
    pytester: pytest.Pytester,
) -> None:
    source = (
        "import os\n\nLISTED = []\n\n\ndef listing(cls):\n"
        '    LISTED.extend(k for k in vars(cls) if k.isupper() and k != "ALIAS")\n'
        "    return cls\n\n\n@listing\nclass Visitor:" + _BODY
    )
    _project(pytester, source)
    edit(pytester, "visitor.py", "    A = 1\n", "    A = 1\n    B = 2\n")
    assert "test_listed" in run(pytester)


_PLAIN = 'import os\n\nLISTED = ["A"]\n\n\nclass Visitor:' + _BODY


def test_an_alias_follows_the_definition_it_reads(pytester: pytest.Pytester) -> None:
    _project(pytester, _PLAIN)
    edit(pytester, "visitor.py", "    def handle(self):", "    def handle(self, *more):")
    assert run(pytester) == {"test_alias"}


def test_an_alias_moved_above_what_it_reads_runs_its_readers(pytester: pytest.Pytester) -> None:
    source = _PLAIN.replace("import os\n", 'import os\n\n\ndef handle(self):\n    return "top"\n')
    _project(pytester, source)
    edit(pytester, "visitor.py", "    ALIAS = handle\n", "")
    edit(pytester, "visitor.py", "    extras = set()\n", "    ALIAS = handle\n    extras = set()\n")
    assert run(pytester) == {"test_alias"}


def test_an_alias_that_cannot_be_made_runs_every_importer(pytester: pytest.Pytester) -> None:
    _project(pytester, _PLAIN)
    edit(pytester, "visitor.py", "    A = 1\n", "    A = 1\n    B = missing\n")
    assert run(pytester) == _EVERY


def test_a_binding_an_effect_reads_runs_every_importer(pytester: pytest.Pytester) -> None:
    source = _PLAIN.replace("    extras = set()\n", "    LIMIT = 2\n    extras = set()\n")
    source = source.replace('os.environ.get("VISITOR_EXTRAS")', "LIMIT < 1")
    _project(pytester, source)
    edit(pytester, "visitor.py", "    LIMIT = 2\n", "    LIMIT = 0\n")
    assert run(pytester) == _EVERY


def test_a_name_an_effect_may_rebind_stays_with_it(pytester: pytest.Pytester) -> None:
    source = _PLAIN.replace(
        '        extras.add("extra")\n', '        extras.add("extra")\n        A = 3\n'
    )
    _project(pytester, source)
    edit(pytester, "visitor.py", "    A = 1\n", "    A = 2\n")
    assert run(pytester) == _EVERY


def test_a_test_listing_the_class_sees_a_new_member(pytester: pytest.Pytester) -> None:
    _project(pytester, _PLAIN)
    listing = (
        "\n\ndef test_dir():\n    import visitor\n\n"
        "    assert [k for k in dir(visitor.Visitor) if k.isupper()] == ['A', 'ALIAS']\n\n\n"
        "def test_vars():\n    import visitor\n\n"
        "    assert 'B' not in vars(visitor.Visitor)\n"
    )
    (pytester.path / "test_listing.py").write_text(listing)
    assert run(pytester) == {"test_dir", "test_vars"}
    edit(pytester, "visitor.py", "    A = 1\n", "    A = 1\n    B = 2\n")
    assert {"test_dir", "test_vars"} <= run(pytester)


def test_a_module_binding_moved_above_the_class_runs_the_readers_of_an_alias(
    pytester: pytest.Pytester,
) -> None:
    # Above the class the alias takes the module's ``len``; below it, the builtin.
    source = _PLAIN.replace("    A = 1\n", "    A = 1\n    SIZE = len\n") + (
        "\n\ndef len(items):\n    return -1\n"
    )
    _project(pytester, source)
    (pytester.path / "test_size.py").write_text(
        "def test_size():\n    import visitor\n\n    assert visitor.Visitor.SIZE([1]) == 1\n"
    )
    assert run(pytester) == {"test_size"}
    text = (pytester.path / "visitor.py").read_text()
    moved = text.replace("\n\ndef len(items):\n    return -1\n", "")
    moved = moved.replace("import os\n", "import os\n\n\ndef len(items):\n    return -1\n")
    (pytester.path / "visitor.py").write_text(moved)
    assert "test_size" in run(pytester)

"""When a top-level ``from module import ...`` of a project module is added, the module
runs earlier: inside the importer's import instead of later. Import-time code that runs
between the two moments may see what the module's import does (a registry it fills), even
in a test that imports the module anyway. Real pytest sessions on temporary projects."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def registry_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``plugin`` fills a registry at import without a call; ``snapshot`` copies the
    registry at import; the test imports ``core``, then ``snapshot``, then ``plugin``."""
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/registry.py", "ITEMS = {}\n")
    write(
        pytester,
        "pkg/plugin.py",
        """
        from pkg import registry

        registry.ITEMS["plugin"] = 1
        MARK = 1
        """,
    )
    write(
        pytester,
        "pkg/snapshot.py",
        """
        from pkg import registry

        SEEN = sorted(registry.ITEMS)
        """,
    )
    write(
        pytester,
        "pkg/core.py",
        """
        def answer():
            return 42
        """,
    )
    write(
        pytester,
        "test_order.py",
        """
        import pkg.core
        import pkg.snapshot
        import pkg.plugin


        def test_snapshot_before_plugin():
            assert pkg.snapshot.SEEN == []


        def test_answer():
            assert pkg.core.answer() == 42
        """,
    )
    return pytester


def test_added_import_filling_a_registry_read_at_import_later(
    registry_project: pytest.Pytester,
) -> None:
    """The importer calls nothing at import and the added module's import calls nothing,
    yet another module's import-time call, run between the new and the old moment, sees
    the registry filled: the test that reads its copy must run (and fail)."""
    assert run(registry_project) == {"test_snapshot_before_plugin", "test_answer"}
    added = "from pkg.plugin import MARK\n\n\ndef answer"
    edit(registry_project, "pkg/core.py", "def answer", added)
    assert "test_snapshot_before_plugin" in run(registry_project)


def _package_project(pytester: pytest.Pytester, package_init: str) -> None:
    """``ext/__init__`` runs ``package_init``; ``ext.a`` only binds a name; ``snapshot``
    copies the registry at import; the test imports ``core``, ``snapshot``, then
    ``ext.a``."""
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/registry.py", "ITEMS = {}\n")
    write(
        pytester, "pkg/snapshot.py", "from pkg import registry\n\nSEEN = sorted(registry.ITEMS)\n"
    )
    write(pytester, "pkg/core.py", "def answer():\n    return 42\n")
    write(pytester, "ext/__init__.py", package_init)
    write(pytester, "ext/a.py", "MARK = 1\n")
    write(
        pytester,
        "test_order.py",
        """
        import pkg.core
        import pkg.snapshot
        import ext.a


        def test_snapshot_before_ext():
            assert pkg.snapshot.SEEN == []


        def test_answer():
            assert pkg.core.answer() == 42
        """,
    )
    assert run(pytester) == {"test_snapshot_before_ext", "test_answer"}
    edit(pytester, "pkg/core.py", "def answer", "from ext.a import MARK\n\n\ndef answer")


def test_added_import_running_a_package_that_fills_a_registry(pytester: pytest.Pytester) -> None:
    """``ext.a`` binds a name only, but importing it runs its package first, which was not
    imported before ``core`` and fills the registry: the copy taken between the new and
    the old moment differs, the test reading it must run (and fail)."""
    _package_project(pytester, "from pkg import registry\n\nregistry.ITEMS['ext'] = 1\n")
    ran, failed = ran_and_failed(pytester)
    assert failed == {"test_snapshot_before_ext"} and failed <= ran


def test_added_import_running_a_package_that_binds_only(pytester: pytest.Pytester) -> None:
    """The same package only binding names: nothing but the moment moves, and the test
    imports ``ext.a`` anyway."""
    _package_project(pytester, "from pkg import registry\n\nNAME = 'ext'\n")
    assert run(pytester) == set()


def test_added_import_under_a_calling_package_of_the_importer(pytester: pytest.Pytester) -> None:
    """``pkg/__init__`` calls at import, but it is the importer's package too: it ran
    before ``core`` either way; ``plugin`` only binds and every test imports it anyway."""
    write(pytester, "pkg/__init__.py", "import logging\n\nLOG = logging.getLogger(__name__)\n")
    write(pytester, "pkg/plugin.py", "MARK = 1\n")
    write(pytester, "pkg/core.py", "def answer():\n    return 42\n")
    write(
        pytester,
        "test_core.py",
        "import pkg.core\nimport pkg.plugin\n\n\ndef test_core():\n"
        "    assert pkg.core.answer() == 42\n",
    )
    assert run(pytester) == {"test_core"}
    edit(pytester, "pkg/core.py", "def answer", "from pkg.plugin import MARK\n\n\ndef answer")
    assert run(pytester) == set()


@pytest.fixture
def listing_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``snapshot`` lists the loaded submodules of ``pkg`` at import; the test imports
    ``core``, then ``snapshot``, then ``plugin``."""
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/plugin.py", "MARK = 1\n")
    write(
        pytester,
        "pkg/snapshot.py",
        """
        import sys

        LOADED = sorted(name for name in sys.modules if name.startswith("pkg."))
        """,
    )
    write(pytester, "pkg/core.py", "def answer():\n    return 42\n")
    write(
        pytester,
        "test_order.py",
        """
        import pkg.core
        import pkg.snapshot
        import pkg.plugin


        def test_plugin_loaded_after_snapshot():
            assert "pkg.plugin" not in pkg.snapshot.LOADED


        def test_answer():
            assert pkg.core.answer() == 42
        """,
    )
    return pytester


def test_added_import_seen_by_a_later_listing_of_sys_modules(
    listing_project: pytest.Pytester,
) -> None:
    """The added module only binds a name, but import-time code run between the new and
    the old moment lists ``sys.modules``: the test reading that list must run."""
    assert run(listing_project) == {"test_plugin_loaded_after_snapshot", "test_answer"}
    added = "from pkg.plugin import MARK\n\n\ndef answer"
    edit(listing_project, "pkg/core.py", "def answer", added)
    assert "test_plugin_loaded_after_snapshot" in run(listing_project)


@pytest.fixture
def calling_importer_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``core`` makes a library call with constant arguments at import (a type variable);
    both tests import ``util`` themselves before ``core``."""
    write(pytester, "pkg/__init__.py", "")
    write(pytester, "pkg/util.py", "def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    write(
        pytester,
        "pkg/core.py",
        """
        import typing as t

        V = t.TypeVar("V")


        def answer():
            return 42
        """,
    )
    write(pytester, "pkg/other.py", "def name():\n    return 'other'\n")
    write(
        pytester,
        "test_core.py",
        """
        import pkg.util
        import pkg.core


        def test_core():
            assert pkg.core.answer() == 42
        """,
    )
    write(
        pytester,
        "test_other.py",
        """
        import pkg.util
        import pkg.core
        import pkg.other


        def test_other():
            assert pkg.other.name() == "other"
        """,
    )
    return pytester


def test_added_name_from_an_already_imported_module_before_a_constant_library_call(
    calling_importer_project: pytest.Pytester,
) -> None:
    """``from pkg.util import two`` is added above the call: ``util`` ran before in every
    test, the call reads neither ``two`` nor any listing, so no test need run."""
    assert run(calling_importer_project) == {"test_core", "test_other"}
    added = "import typing as t\n\nfrom pkg.util import two\n"
    edit(calling_importer_project, "pkg/core.py", "import typing as t\n", added)
    assert run(calling_importer_project) == set()


def test_added_import_seen_by_a_later_class_body_listing_sys_modules(
    listing_project: pytest.Pytester,
) -> None:
    """The listing made in a class body at import: the same."""
    snapshot = (
        "import sys\n\n\nclass Seen:\n    LOADED = sorted(n for n in sys.modules if 'pkg.' in n)\n"
    )
    write(listing_project, "pkg/snapshot.py", snapshot)
    edit(listing_project, "test_order.py", "pkg.snapshot.LOADED", "pkg.snapshot.Seen.LOADED")
    assert run(listing_project) == {"test_plugin_loaded_after_snapshot", "test_answer"}
    added = "from pkg.plugin import MARK\n\n\ndef answer"
    edit(listing_project, "pkg/core.py", "def answer", added)
    ran, failed = ran_and_failed(listing_project)
    assert failed == {"test_plugin_loaded_after_snapshot"} and failed <= ran


def _other_module(pytester: pytest.Pytester) -> None:
    """``pkg.other``, which only ``test_other`` imports, recorded, then its body changed."""
    write(pytester, "pkg/other.py", "def name():\n    return 'other'\n")
    write(
        pytester, "test_other.py", "import pkg.other\n\n\ndef test_other():\n    pkg.other.name()\n"
    )
    assert "test_other" in run(pytester)
    edit(pytester, "pkg/other.py", "'other'", "'another'")


def test_a_listing_at_import_sees_an_import_added_for_another_test_file(
    listing_project: pytest.Pytester,
) -> None:
    """What a listing of ``sys.modules`` sees at import depends on everything imported
    before it in the session: ``pkg.other``, imported only by a test file collected
    earlier, now imports ``plugin``; the listing test depends on no unit of it, and runs
    on any change (``rts.session_listings``)."""
    write(listing_project, "pkg/other.py", "def name():\n    return 'other'\n")
    write(listing_project, "test_a_first.py", "import pkg.other\n\n\ndef test_first():\n    pass\n")
    assert "test_first" in run(listing_project)
    edit(listing_project, "pkg/other.py", "def name", "from pkg.plugin import MARK\n\n\ndef name")
    ran, failed = ran_and_failed(listing_project)
    assert failed == {"test_plugin_loaded_after_snapshot"} and failed <= ran


def test_a_module_asked_by_key_at_import_is_no_listing(
    listing_project: pytest.Pytester,
) -> None:
    """``sys.modules[__name__]`` at import finds one module: no listing, and a change to a
    module the test does not import selects only that module's test."""
    write(listing_project, "pkg/snapshot.py", "import sys\n\nLOADED = [sys.modules[__name__]]\n")
    _other_module(listing_project)
    assert run(listing_project) == {"test_other"}


def test_added_import_seen_by_a_later_listing_of_the_package(
    listing_project: pytest.Pytester,
) -> None:
    """``snapshot`` lists ``pkg``'s namespace at import: ``plugin`` is there once imported
    (a strict xfail on e1ec010: not selected, and failed). Told as ``dir`` runs
    (``namespace_listings.PACKAGE_LISTING``): a listing of the session's state."""
    write(
        listing_project,
        "pkg/snapshot.py",
        "import pkg\n\nLOADED = ['pkg.' + n for n in dir(pkg)]\n",
    )
    assert run(listing_project) == {"test_plugin_loaded_after_snapshot", "test_answer"}
    added = "from pkg.plugin import MARK\n\n\ndef answer"
    edit(listing_project, "pkg/core.py", "def answer", added)
    ran, failed = ran_and_failed(listing_project)
    assert failed == {"test_plugin_loaded_after_snapshot"} and failed <= ran


@pytest.mark.parametrize("listed", ["operator", "pkg.core"])
def test_a_listing_at_import_of_no_package_is_no_session_listing(
    listing_project: pytest.Pytester, listed: str
) -> None:
    """Precision: ``dir`` of a library module (toolz's ``curried.operator`` lists
    ``operator``) or of a project module that is no package holds no submodule imported
    elsewhere: a change to a module the test does not import selects only that module's
    test."""
    snapshot = f"import {listed}\n\nLOADED = ['pkg.' + n for n in dir({listed})]\n"
    write(listing_project, "pkg/snapshot.py", snapshot)
    _other_module(listing_project)
    assert run(listing_project) == {"test_other"}

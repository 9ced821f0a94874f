"""``name in sys.modules`` asks whether a module is loaded: the answer depends on what other
tests' files imported before, which any change anywhere may alter, as a listing of the
session's state does (``rts.session_listings``). On 3.12 the ask is told as it runs
(``rts.module_presence``): one about the module whose import runs it (boltons'
``make_sentinel(var_name=...)`` at a module's top level) is yes whatever any file imports,
and lists nothing; any other lists. Before 3.12 every ask lists. On ba51e1d the ask was
a keyed read of one module (``rts.module_table_keys``): a test asserting a module is not
loaded was not selected once another test's module started importing it, and failed."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, ran_and_failed, run, write

pytest_plugins = ["pytester"]

TOLD = sys.version_info >= (3, 12)

SUBSCRIPT_HOLE = pytest.mark.xfail(
    strict=True,
    reason="a subscript (sys.modules[k], del) raises when the module is not there, an ask; "
    "counted a keyed read of that module: as an ask, funcy's __init__ "
    "(sys.modules['funcy.' + m].__all__, a key no event tells) and typeguard's "
    "sys.modules[f.__module__] made every importer a listing (snd37)",
)

# ``make_sentinel``'s check, in a module of its own: the caller's module must be loaded.
KIT = """
import sys


def caller_module():
    module = sys._getframe(1).f_globals.get("__name__")
    if not module or module not in sys.modules:
        raise ValueError("called from no loaded module")
    return module


def has(name):
    return name in sys.modules
"""


def _other_and_its_test(pytester: pytest.Pytester, test_file: str = "test_b.py") -> None:
    write(pytester, "gamma.py", "VALUE = 1\n")
    write(pytester, "other.py", "def two():\n    return 2\n")
    write(pytester, test_file, "import other\n\n\ndef test_b():\n    assert other.two() == 2\n")


@pytest.mark.parametrize(
    "ask",
    [
        '"gam" + "ma" in sys.modules',
        '"gamma" in sys.modules',
        'sys.modules.get("gamma") is not None',
        'sys.modules.__contains__("gam" + "ma")',
        # A key computed in place is not told: a listing on every Python.
        '"".join(["gam", "ma"]) in sys.modules',
        # The answer of a ``pop`` or a ``setdefault`` is whether the module was there (on
        # e1ec010 a keyed read of ``gamma`` alone: not selected, and failed).
        'sys.modules.pop("gamma", None) is not None',
        'sys.modules.setdefault("gamma", sys) is not sys',
    ],
)
def test_a_module_another_file_starts_importing_selects_a_membership_test(
    pytester: pytest.Pytester, ask: str
) -> None:
    _other_and_its_test(pytester)
    write(
        pytester,
        "test_a.py",
        f"""
        import sys


        def test_not_loaded():
            loaded = {ask}
            assert not loaded
        """,
    )
    assert run(pytester) == {"test_b", "test_not_loaded"}
    edit(pytester, "other.py", "def two", "import gamma\n\n\ndef two")
    assert ran_and_failed(pytester) == ({"test_b", "test_not_loaded"}, {"test_not_loaded"})


@pytest.mark.parametrize(
    "ask",
    [
        "sys.modules.get(name) is not None",
        pytest.param("sys.modules[name] is not None", marks=SUBSCRIPT_HOLE),
        # Selected on e1ec010 already (they change the table): guards.
        "sys.modules.pop(name) is not None",
        "sys.modules.setdefault(name, None) is not None",
    ],
)
def test_a_module_no_file_imports_any_more_selects_a_membership_test(
    pytester: pytest.Pytester, ask: str
) -> None:
    # Loaded, but by another file's import long done: no import runs the ask.
    _other_and_its_test(pytester)
    edit(pytester, "other.py", "def two", "import gamma\n\n\ndef two")
    write(
        pytester,
        "test_a.py",
        f"""
        import sys


        def test_loaded():
            name = "gamma"
            assert {ask}
        """,
    )
    assert run(pytester) == {"test_b", "test_loaded"}
    edit(pytester, "other.py", "import gamma\n", "")
    assert ran_and_failed(pytester) == ({"test_b", "test_loaded"}, {"test_loaded"})


@SUBSCRIPT_HOLE
@pytest.mark.parametrize(
    "ask", ['sys.modules["gamma"]', "sys.modules[name]", "del sys.modules[name]"]
)
def test_a_module_another_file_starts_importing_selects_a_subscript(
    pytester: pytest.Pytester, ask: str
) -> None:
    # A subscript or a delete raises while the module is not there: an ask (on e1ec010 a
    # keyed read of ``gamma`` alone: not selected, and failed).
    _other_and_its_test(pytester)
    write(
        pytester,
        "test_a.py",
        f"""
        import sys

        import pytest


        def test_not_loaded():
            name = "gamma"
            with pytest.raises(KeyError):
                {ask}
        """,
    )
    assert run(pytester) == {"test_b", "test_not_loaded"}
    edit(pytester, "other.py", "def two", "import gamma\n\n\ndef two")
    assert ran_and_failed(pytester) == ({"test_b", "test_not_loaded"}, {"test_not_loaded"})


@pytest.fixture
def sentinels(pytester: pytest.Pytester) -> pytest.Pytester:
    """``things`` asks at its top level whether it is loaded itself (and, in a function,
    whether ``gamma`` is); ``test_b`` alone imports ``other``."""
    _other_and_its_test(pytester)
    write(pytester, "kit.py", KIT)
    write(
        pytester,
        "things.py",
        """
        import kit

        NAME = kit.caller_module()


        def value():
            return 1


        def name_now():
            return kit.caller_module()
        """,
    )
    write(
        pytester,
        "test_things.py",
        """
        import things


        def test_value():
            assert things.value() == 1


        def test_name_now():
            assert things.name_now() == "things"
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_b", "test_value", "test_name_now"}
    return pytester


def test_an_ask_about_the_module_being_imported_lists_nothing(
    sentinels: pytest.Pytester,
) -> None:
    # ``test_name_now`` asks from a function, after the import: a listing.
    edit(sentinels, "other.py", "return 2", "return 1 + 1")
    expected = {"test_b", "test_name_now"} if TOLD else {"test_b", "test_value", "test_name_now"}
    assert run(sentinels) == expected


def test_a_module_another_file_drops_from_the_table_selects_an_ask_after_import(
    sentinels: pytest.Pytester,
) -> None:
    # ``test_z.py`` is collected after ``test_things.py``: its ``dropper`` drops ``things``
    # from the table, and the function's ask fails.
    write(sentinels, "dropper.py", "def three():\n    return 3\n")
    write(
        sentinels,
        "test_z.py",
        "import dropper\n\n\ndef test_z():\n    assert dropper.three() == 3\n",
    )
    assert run(sentinels, flag="--reks-all") == {"test_b", "test_value", "test_name_now", "test_z"}
    edit(
        sentinels,
        "dropper.py",
        "def three",
        'import sys\n\nsys.modules.pop("things", None)\n\n\ndef three',
    )
    ran, failed = ran_and_failed(sentinels)
    assert failed == {"test_name_now"} <= ran


def test_an_ask_about_its_own_entry_at_a_module_top_level_lists_nothing(
    pytester: pytest.Pytester,
) -> None:
    # ``sys.modules.get(__name__)`` at a module's top level: its own entry, there as it runs
    # (any Python). On e1ec010 a listing: selected by the change of ``other``.
    _other_and_its_test(pytester)
    write(pytester, "things.py", "import sys\n\nSELF = sys.modules.get(__name__)\nVALUE = 1\n")
    write(
        pytester,
        "test_things.py",
        "import things\n\n\ndef test_value():\n    assert things.SELF.VALUE == 1\n",
    )
    assert run(pytester, flag="--reks-all") == {"test_b", "test_value"}
    edit(pytester, "other.py", "return 2", "return 1 + 1")
    assert run(pytester) == {"test_b"}


@pytest.mark.parametrize(
    "things",
    [
        'import kit\n\nHAS_GAMMA = kit.has("gamma")\n',
        'import sys\n\nHAS_GAMMA = "gamma" in sys.modules\n',
    ],
)
def test_an_ask_at_import_about_another_module_selects(
    pytester: pytest.Pytester, things: str
) -> None:
    # Asked while ``things`` is imported (in a function, or at its top level), about
    # ``gamma``: no import of ``gamma`` runs it.
    _other_and_its_test(pytester)
    write(pytester, "kit.py", KIT)
    write(pytester, "things.py", things)
    write(
        pytester,
        "test_things.py",
        "import things\n\n\ndef test_no_gamma():\n    assert not things.HAS_GAMMA\n",
    )
    assert run(pytester, flag="--reks-all") == {"test_b", "test_no_gamma"}
    edit(pytester, "other.py", "def two", "import gamma\n\n\ndef two")
    assert ran_and_failed(pytester) == ({"test_b", "test_no_gamma"}, {"test_no_gamma"})

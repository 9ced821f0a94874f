"""A ``def`` or class whose default values call code (``rts.default_calls``), on real pytest
sessions. tenacity's ``BaseRetrying.__init__(..., wait=wait_none())`` kept the whole class
in the module unit: a method added to it or a parameter added to ``__init__`` selected every
test importing tenacity. Now the calls alone stay in the module unit.

Precision: a dunder method or a parameter added to such a class, or a parameter added to such a
``def``, selects the tests that use them, not a test that only imports the module.

Guards (each selects every importer, and the test that sees the change fails at the child):
a default's call changed so that it raises at import; a ``def`` whose default's call
registers removed, or moved below a call of the module unit that registers too;
the called code changed in its own module; the called name rebound above the ``def``."""

from __future__ import annotations

import pytest

from .helpers import edit, ran_and_failed, write

pytest_plugins = ["pytester"]

MAKERS = """
REGISTRY = []


class Wait:
    def __init__(self, seconds=0):
        REGISTRY.append(seconds)
        self.seconds = seconds
"""

RETRYING = """
from makers import REGISTRY, Wait


class Retrying:
    def __init__(self, wait=Wait()):
        self.wait = wait

    def run(self):
        return self.wait.seconds


def retry(wait=Wait(1)):
    return wait.seconds


REGISTRY.append(2)


def helper():
    return 1
"""

# Each test imports ``retrying`` itself: when the import breaks, every selected test fails
# on its own and one left out shows.
TESTS = """
def test_helper():
    import retrying

    assert retrying.helper() == 1


def test_run():
    import retrying

    assert retrying.Retrying().run() == 0


def test_retry():
    import retrying

    assert retrying.retry() == 1


def test_registry():
    import retrying

    assert retrying.REGISTRY == [0, 1, 2]
"""

RETRY = "def retry(wait=Wait(1)):\n    return wait.seconds\n"
ALL = {"test_helper", "test_run", "test_retry", "test_registry"}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "makers.py", MAKERS)
    write(pytester, "retrying.py", RETRYING)
    write(pytester, "test_retrying.py", TESTS)
    assert ran_and_failed(pytester) == (ALL, set())
    return pytester


def test_a_dunder_added_to_a_class_calling_in_a_default_selects_its_users(
    project: pytest.Pytester,
) -> None:
    # tenacity cb320c4 added ``__getstate__`` to ``BaseRetrying``.
    dunder = '    def __getstate__(self):\n        return {"wait": self.wait}\n\n'
    edit(project, "retrying.py", "    def run(self):", dunder + "    def run(self):")
    assert ran_and_failed(project) == ({"test_run"}, set())


def test_a_parameter_added_to_a_method_calling_in_a_default_selects_its_callers(
    project: pytest.Pytester,
) -> None:
    edit(
        project,
        "retrying.py",
        "def __init__(self, wait=Wait()):",
        "def __init__(self, wait=Wait(), scale=2):",
    )
    edit(project, "retrying.py", "self.wait = wait", "self.wait = wait\n        self.scale = scale")
    assert ran_and_failed(project) == ({"test_run"}, set())


def test_a_parameter_added_to_a_def_calling_in_a_default_selects_its_callers(
    project: pytest.Pytester,
) -> None:
    edit(project, "retrying.py", "def retry(wait=Wait(1)):", "def retry(wait=Wait(1), extra=0):")
    edit(
        project,
        "retrying.py",
        "return wait.seconds\n",
        "return wait.seconds + extra\n",
    )
    assert ran_and_failed(project) == ({"test_retry"}, set())


def test_a_default_call_that_raises_at_import_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "retrying.py", "wait=Wait()", "wait=Wait(0, 1)")
    assert ran_and_failed(project) == (ALL, ALL)  # TypeError at import


def test_a_def_whose_default_call_registers_removed_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "retrying.py", RETRY, "")
    assert ran_and_failed(project) == (ALL, {"test_retry", "test_registry"})


def test_a_def_whose_default_call_registers_moved_below_a_call_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "retrying.py", RETRY, "")
    edit(project, "retrying.py", "def helper():", RETRY + "\n\ndef helper():")
    assert ran_and_failed(project) == (ALL, {"test_registry"})  # [0, 2, 1]


def test_a_def_whose_default_call_registers_moved_below_an_import_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    # The import reads no name of the module: only where the call stands tells the order.
    write(project, "side.py", "from makers import REGISTRY\n\nREGISTRY.append(3)\n")
    edit(project, "retrying.py", "REGISTRY.append(2)\n", "import side\n")
    edit(project, "test_retrying.py", "[0, 1, 2]", "[0, 1, 3]")
    assert ran_and_failed(project) == (ALL, set())
    edit(project, "retrying.py", RETRY, "")
    edit(project, "retrying.py", "def helper():", RETRY + "\n\ndef helper():")
    assert ran_and_failed(project) == (ALL, {"test_registry"})  # [0, 3, 1]


def test_the_called_code_changed_selects_every_importer(project: pytest.Pytester) -> None:
    edit(project, "makers.py", "REGISTRY.append(seconds)", "REGISTRY.append(seconds + 1)")
    assert ran_and_failed(project) == (ALL, {"test_registry"})


def test_the_called_name_rebound_above_the_def_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    edit(project, "retrying.py", "\n\ndef retry(", "\n\nWait = type(None)\n\n\ndef retry(")
    assert ran_and_failed(project) == (ALL, ALL)  # TypeError at import


def test_the_called_name_rebound_in_its_module_selects_every_importer(
    project: pytest.Pytester,
) -> None:
    # Only the class calls ``make`` (a ``def``'s ``<raises>`` unit reads what it calls),
    # and ``make()`` runs no code of the project: no import footprint shows it.
    edit(project, "makers.py", "REGISTRY = []", "REGISTRY = []\nmake = dict")
    edit(project, "retrying.py", "import REGISTRY, Wait", "import REGISTRY, Wait, make")
    edit(project, "retrying.py", "(self, wait=Wait()):", "(self, wait=Wait(), options=make()):")
    assert ran_and_failed(project) == (ALL, set())
    edit(project, "makers.py", "make = dict", "make = len")
    assert ran_and_failed(project) == (ALL, ALL)  # TypeError at import

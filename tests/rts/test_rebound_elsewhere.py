"""A global an earlier test rebound in one module is read only by code that can reach that
module. typeguard's import-hook tests re-import a test helper module (every global of it
rebound) and the transformer's tests spell the same names as string constants
(``"check_argument_types"``) in code that never touches that module: each transformer test
depended on everything the import-hook tests ran (2,181 units against 939 recorded alone).
A later test reaches the module when it depends on it otherwise (imports it, runs its code,
or names it by string), and then still depends on the tests that rebound the global."""

from __future__ import annotations

import pytest

from .helpers import edit, run, run_result, write

pytest_plugins = ["pytester"]

CHOOSE = "def choose():\n    return 'fast'\n"
PLUGIN = "mode = 'plain'\n\n\ndef other():\n    return 0\n"
REBINDS = """
import choosing
import plugin


def test_rebinds():
    plugin.mode = choosing.choose()
"""

# The second test's module, by the way it reads ``mode``: only the first reads no
# module where the first test rebound it.
READERS = {
    "spells the name only": (
        "class Emitter:\n    mode = 'text'\n\n\ndef emit():\n    return ['mode', Emitter().mode]\n",
        "['mode', 'text']",
    ),
    "imports the module under another name": (
        "import plugin as settings\n\n\ndef emit():\n    return settings.mode\n",
        "'fast'",
    ),
    "finds the module by its name": (
        "import sys\n\n\ndef emit():\n    return sys.modules['plugin'].mode\n",
        "'fast'",
    ),
    "calls the module's own code": (
        "def emit(read):\n    return read()\n",
        "'fast'",
    ),
}


def _project(pytester: pytest.Pytester, reader: str) -> None:
    source, expected = READERS[reader]
    write(pytester, "choosing.py", CHOOSE)
    plugin = PLUGIN
    if reader == "calls the module's own code":
        plugin += "\n\ndef read():\n    return mode\n\n\nREADER = read\n"
        write(pytester, "registry.py", "READERS = []\n")
        # The reader reaches plugin's function through a registry the first test filled.
        rebinds = REBINDS + "    import registry\n\n    registry.READERS.append(plugin.READER)\n"
        call = "import registry\n\n    assert gen.emit(registry.READERS[0]) == "
    else:
        rebinds, call = REBINDS, "assert gen.emit() == "
    write(pytester, "plugin.py", plugin)
    write(pytester, "test_a.py", rebinds)
    write(pytester, "gen.py", source)
    write(pytester, "test_b.py", f"import gen\n\n\ndef test_emits():\n    {call}{expected}\n")


def test_a_name_rebound_in_a_module_the_test_never_reaches(pytester: pytest.Pytester) -> None:
    """Precision: the second test spells ``mode`` (a string, an attribute of its own class)
    and never reaches ``plugin``; a change to what the first test stored there selects the
    first test alone."""
    _project(pytester, "spells the name only")
    assert run(pytester, "-p", "no:randomly") == {"test_rebinds", "test_emits"}
    edit(pytester, "choosing.py", "'fast'", "'slow'")
    assert run(pytester, "-p", "no:randomly") == {"test_rebinds"}


@pytest.mark.parametrize("reader", sorted(set(READERS) - {"spells the name only"}))
def test_a_test_reaching_the_module_still_depends_on_the_rebinding(
    pytester: pytest.Pytester, reader: str
) -> None:
    """Guards: the second test reaches ``plugin`` (an aliased import, ``sys.modules`` by
    name, a function of it handed over through a registry) and reads the value the first
    test stored there: it is selected, and fails after the change."""
    _project(pytester, reader)
    assert run(pytester, "-p", "no:randomly") == {"test_rebinds", "test_emits"}
    edit(pytester, "choosing.py", "'fast'", "'slow'")
    result = run_result(pytester, "--reks", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)  # both selected; the reader fails
    result.stdout.fnmatch_lines(["FAILED test_b.py::test_emits*"])

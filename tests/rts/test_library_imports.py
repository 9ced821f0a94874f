"""A new project module importing an installed library no test imported before
(``rts.library_imports``): the library's import, run once in a fresh process, shows by its
names only, so the tests importing the package do not rerun (python-validators 4973c49:
``eth_address.py`` imports ``eth_hash.auto`` in a ``try``; 758 tests reran, testmon 25).
A library whose import sets an environment variable or patches a standard-library
function, or raises, reruns every importer. Real pytest sessions, the library in a folder
outside the project on ``sys.path`` (the probe's process inherits ``PYTHONPATH``)."""

from __future__ import annotations

import json

# pytest-xdist, pytest-timeout and others load it, and the probe loads first what the caller
# loaded: it names the probe's own module ``__mp_main__`` too (not a change of the import).
import multiprocessing  # noqa: F401
import os
import textwrap
from pathlib import Path

import pytest

from .helpers import ran_and_failed, run, write

pytest_plugins = ["pytester"]

_LIBRARIES = {
    "quietlib": "import re\n\nPATTERN = re.compile('a+')\n\n\ndef keccak(value):\n"
    "    return bool(PATTERN.fullmatch(value))\n",
    "envlib": "import os\n\nos.environ['ENVLIB_LOADED'] = '1'\n\n\ndef keccak(value):\n"
    "    return True\n",
    "patchlib": "import json\n\njson.dumps = lambda *args, **kwargs: 'patched'\n\n\n"
    "def keccak(value):\n    return True\n",
    "raisinglib": "raise ValueError('not on this platform')\n",
}

# Validators' shape: the library is optional, its import failure handled.
_ETH = """
_flag = True
try:
    from {library} import keccak
except ImportError:
    _flag = False


def eth(value):
    return keccak(value)
"""

_TESTS = {
    "test_check.py": "from pkg import check\n\n\ndef test_check():\n    assert check(1)\n",
    "test_env.py": "import os\n\nimport pkg\n\n\ndef test_env():\n"
    "    assert pkg.check(1) and 'ENVLIB_LOADED' not in os.environ\n",
    "test_json.py": "import json\n\nimport pkg\n\n\ndef test_json():\n"
    "    assert pkg.check(1) and json.dumps(1) == '1'\n",
}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    libraries = pytester.path.parent / f"{pytester.path.name}-site"
    libraries.mkdir()
    for name, text in _LIBRARIES.items():
        (libraries / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(libraries))
    # The runs are in-process: what a library's import does is undone for other tests.
    monkeypatch.delenv("ENVLIB_LOADED", raising=False)
    monkeypatch.setattr(json, "dumps", json.dumps)
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(libraries), path])))
    write(pytester, "pkg/__init__.py", "from .check import check\n")
    write(pytester, "pkg/check.py", "def check(value):\n    return bool(value)\n")
    for name, text in _TESTS.items():
        write(pytester, name, text)
    assert run(pytester, "-p", "no:randomly") == {"test_check", "test_env", "test_json"}
    return pytester


def _add_eth(project: pytest.Pytester, library: str) -> None:
    write(project, "pkg/eth.py", textwrap.dedent(_ETH).format(library=library))
    init = Path(project.path / "pkg/__init__.py")
    init.write_text(init.read_text() + "from .eth import eth\n")
    write(
        project, "test_eth.py", "from pkg import eth\n\n\ndef test_eth():\n    assert eth('aa')\n"
    )


def test_a_quiet_library_imported_by_a_new_module_reruns_no_importer(
    project: pytest.Pytester,
) -> None:
    _add_eth(project, "quietlib")
    ran, failed = ran_and_failed(project, "-p", "no:randomly")
    assert ran == {"test_eth"}
    assert failed == set()


@pytest.mark.parametrize(
    ("library", "failing"),
    [("envlib", {"test_env"}), ("patchlib", {"test_json"})],
)
def test_a_library_whose_import_changes_the_process_reruns_every_importer(
    project: pytest.Pytester, library: str, failing: set[str]
) -> None:
    # Guards: what the import does outside its own names shows in other tests.
    _add_eth(project, library)
    ran, failed = ran_and_failed(project, "-p", "no:randomly")
    assert ran == {"test_check", "test_env", "test_json", "test_eth"}
    assert failed == failing

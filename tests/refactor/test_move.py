"""Moves of a global never return broken code: every importer rope leaves behind is mended,
a public old module keeps the name importable, no import cycle is created, destinations
may be new modules and dotted names in src layouts. Each project is run after the move."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.refactor.apply import apply_edits
from lsp_server.refactor.engine import RefactorEngine
from lsp_server.refactor.model import FileCreate, RefactoringError, RefactorRequest
from lsp_server.refactor.module_moves import rename_and_move_module
from lsp_server.refactor.workspace import RopeWorkspace
from tests.support.reks import write_files

CACHED = """\
\"\"\"Wrappers.\"\"\"

PREFIX = "w"


def _cached_wrapper(f):
    return PREFIX + f


def _cachedmethod_wrapper(f):
    return PREFIX + "m" + f
"""

INIT = """\
\"\"\"Caches.\"\"\"

from ._cached import _cached_wrapper, _cachedmethod_wrapper


def cachedmethod(f):
    return _cachedmethod_wrapper(f) + _cached_wrapper(f)
"""


def run(root: Path, code: str, folder: str = ".") -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root / folder, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def move(engine: RefactorEngine, root: Path, rel: str, needle: str, destination: str):
    text = (root / rel).read_text()
    request = RefactorRequest(
        "move", str(root / rel), text.index(needle) + 4, None, {"destination": destination}
    )
    return engine.compute(request)


def test_move_into_a_new_module_of_a_src_layout_mends_relative_imports(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    """The cachetools shape: the package ``__init__`` imports the moved name relatively
    with another one, the destination is dotted and does not exist yet."""
    write_files(tmp_path, {"pyproject.toml": "", "src/cache/__init__.py": INIT})
    write_files(tmp_path, {"src/cache/_cached.py": CACHED})
    result = move(
        tmp_engine, tmp_path, "src/cache/_cached.py", "def _cachedmethod", "cache._method"
    )
    created = [e for e in result.edits if isinstance(e, FileCreate)]
    assert [e.path for e in created] == [str(tmp_path / "src/cache/_method.py")]
    assert "def _cachedmethod_wrapper(f):" in created[0].text
    tmp_engine.apply(result, str(tmp_path))
    init = (tmp_path / "src/cache/__init__.py").read_text()
    assert "from ._cached import _cached_wrapper\n" in init
    assert "from ._method import _cachedmethod_wrapper\n" in init
    assert run(tmp_path, "import cache; print(cache.cachedmethod('x'))", "src") == "wmxwx\n"


def test_aliased_importer_is_mended_and_a_public_module_keeps_the_name(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    write_files(
        tmp_path,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/tools.py": "def helper():\n    return 7\n",
            "pkg/other.py": '"""Where it goes."""\n',
            "main.py": "from pkg.tools import helper as h\nprint(h())\n",
        },
    )
    result = move(tmp_engine, tmp_path, "pkg/tools.py", "def helper", "pkg/other.py")
    tmp_engine.apply(result, str(tmp_path))
    assert "from pkg.other import helper as h" in (tmp_path / "main.py").read_text()
    assert run(tmp_path, "import main") == "7\n"
    # Code outside the project may still import it from the old, public module.
    assert run(tmp_path, "from pkg.tools import helper; print(helper())") == "7\n"


def test_reexport_is_lazy_when_the_new_module_imports_the_old_one(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    write_files(
        tmp_path,
        {
            "pyproject.toml": "",
            "m.py": "VALUE = 3\n\n\ndef g():\n    return VALUE + 2\n\n\n"
            "def f():\n    return VALUE + 1\n",
            "other.py": '"""Where it goes."""\n',
            "main.py": "from m import f as h\nprint(h())\n",
        },
    )
    result = move(tmp_engine, tmp_path, "m.py", "def g", "other.py")
    tmp_engine.apply(result, str(tmp_path))
    assert "from m import VALUE" in (tmp_path / "other.py").read_text()
    assert "def __getattr__(name):" in (tmp_path / "m.py").read_text()
    assert run(tmp_path, "import other; from m import g; print(g())") == "5\n"
    assert run(tmp_path, "import m; print(m.g())") == "5\n"
    # A second move out of the same module: its accessor learns the second name (and
    # rope, moving a global named `f`, finds no f-string prefix to rewrite in it).
    result = move(tmp_engine, tmp_path, "m.py", "def f", "other.py")
    tmp_engine.apply(result, str(tmp_path))
    assert run(tmp_path, "import main") == "4\n"
    assert run(tmp_path, "import other; from m import f, g; print(f(), g())") == "4 5\n"
    assert run(tmp_path, "from m import f; print(f())") == "4\n"


def test_a_move_that_creates_an_import_cycle_is_refused(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    write_files(
        tmp_path,
        {
            "pyproject.toml": "",
            "m.py": "VALUE = 2\n\n\ndef f():\n    return VALUE + 1\n\n\nTOTAL = f()\n",
            "other.py": '"""Where it goes."""\n',
        },
    )
    with pytest.raises(RefactoringError, match=r"import cycle: m\.py -> other\.py -> m\.py"):
        move(tmp_engine, tmp_path, "m.py", "def f", "other.py")


def test_an_import_cycle_through_a_package_init_is_refused(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    """rope's own shape: the old module still calls the moved function, so it imports the
    new module, whose package ``__init__`` imports a module that needs the old one loaded."""
    code = (
        "def indent(line):\n    return len(line) - len(line.lstrip())\n\n\n"
        "def first(lines):\n    return indent(lines[0])\n\n\ndef pattern():\n    return '#'\n"
    )
    files = {
        "pyproject.toml": "",
        "base/__init__.py": "",
        "base/code.py": code,
        "tools/__init__.py": "from tools.organize import PATTERN\n",
        "tools/organize.py": "from base import code\n\nPATTERN = code.pattern()\n",
        "tools/text.py": '"""Where it goes."""\n',
    }
    write_files(tmp_path, files)
    cycle = "base/code.py -> tools/__init__.py -> tools/organize.py -> base/code.py"
    with pytest.raises(RefactoringError, match=re.escape(f"import cycle: {cycle}")):
        move(tmp_engine, tmp_path, "base/code.py", "def indent", "tools/text.py")


def test_an_import_cycle_the_project_already_had_is_not_a_reason_to_refuse(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    m = "import other\n\n\ndef f():\n    return other.BASE + 1\n\n\ndef g():\n    return f()\n"
    write_files(tmp_path, {"pyproject.toml": "", "m.py": m, "other.py": "import m\n\nBASE = 2\n"})
    result = move(tmp_engine, tmp_path, "m.py", "def f", "other.py")
    tmp_engine.apply(result, str(tmp_path))
    assert run(tmp_path, "import m; print(m.g())") == "3\n"


def test_a_missing_destination_folder_is_still_refused(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    write_files(tmp_path, {"pyproject.toml": "", "m.py": "def f():\n    return 1\n"})
    with pytest.raises(RefactoringError, match="does not exist"):
        move(tmp_engine, tmp_path, "m.py", "def f", "nowhere/other.py")


def test_a_module_is_renamed_and_moved_in_one_step(tmp_path: Path) -> None:
    """``workspace/willRenameFiles`` from ``pkg/util.py`` to ``tools/numbers.py``: rope needs
    two steps; the result is one edit of every importer plus the module's rename."""
    write_files(
        tmp_path,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/util.py": "def double(x):\n    return 2 * x\n",
            "tools/__init__.py": "",
            "main.py": "from pkg.util import double\nfrom pkg import util\n"
            "print(double(2), util.double(3))\n",
        },
    )
    before = (tmp_path / "main.py").read_text()
    workspace = RopeWorkspace(tmp_path)
    try:
        result = rename_and_move_module(
            workspace,
            str(tmp_path / "pkg/util.py"),
            str(tmp_path / "tools/numbers.py"),
            RefactorEngine,
        )
    finally:
        workspace.close()
    assert (tmp_path / "main.py").read_text() == before  # nothing written yet
    assert result.files_after["tools/numbers.py"] == "def double(x):\n    return 2 * x\n"
    apply_edits(result.edits, journal_dir=str(tmp_path / ".reks"))
    assert not (tmp_path / "pkg/util.py").exists()
    assert "numbers" in (tmp_path / "main.py").read_text()
    assert run(tmp_path, "import main") == "4 6\n"


def test_a_late_import_is_never_lifted_above_the_definitions_before_it(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    """toolz's shape: ``func.py`` imports ``sigs`` last, after its definitions, because
    ``sigs`` imports from ``func``. rope, adding the destination's import to ``func.py``,
    lifts that late import to the top, and ``import pkg`` then fails."""
    files = {
        "pyproject.toml": "",
        "pkg/__init__.py": "from .func import call\n",
        "pkg/func.py": "def twice(x):\n    return 2 * x\n\n\n"
        "def call(x):\n    return _sigs.spec(x)\n\n\nfrom . import sigs as _sigs\n",
        "pkg/sigs.py": "from .func import twice\n\nDOUBLE = twice\n\n\n"
        "def spec(x):\n    return x + 2\n",
        "pkg/compat.py": '"""Where it goes."""\n',
    }
    write_files(tmp_path, files)
    assert run(tmp_path, "import pkg; print(pkg.call(1))") == "3\n"
    lifted = r"late import on line 9 of pkg/func\.py above `call`"
    with pytest.raises(RefactoringError, match=lifted):
        move(tmp_engine, tmp_path, "pkg/sigs.py", "def spec", "pkg/compat.py")


def test_a_move_never_drops_the_other_names_a_package_re_exports(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    """toolz's history (81df586698^): ``functoolz/__init__.py`` only re-exports names of
    ``functoolz/core.py``; moving one of them, rope removed the whole import as unused,
    and ``from pkg.funcs import memo`` (``pkg/__init__.py``) failed."""
    files = {
        "pyproject.toml": "",
        "pkg/__init__.py": "from pkg.funcs import remove, memo\n",
        "pkg/funcs/__init__.py": "from pkg.funcs.core import (remove,\n    memo)\n",
        "pkg/funcs/core.py": "def remove(p, xs):\n    return [x for x in xs if not p(x)]\n\n\n"
        "def memo(f):\n    return f\n",
        "pkg/iters/__init__.py": "",
        "pkg/iters/core.py": "def first(xs):\n    return xs[0]\n",
    }
    write_files(tmp_path, files)
    assert run(tmp_path, "import pkg; print(pkg.memo(1))") == "1\n"
    try:
        result = move(tmp_engine, tmp_path, "pkg/funcs/core.py", "def remove", "pkg.iters.core")
    except RefactoringError as exc:
        assert re.search(r"`memo`.*pkg/funcs/__init__\.py", str(exc)), str(exc)
        return
    apply_edits(result.edits, str(tmp_path))
    assert run(tmp_path, "import pkg; print(pkg.memo(1), pkg.remove(bool, [0, 1]))") == "1 [0]\n"


def test_a_re_export_from_a_module_outside_any_package_is_not_relative(
    tmp_engine: RefactorEngine, tmp_path: Path
) -> None:
    """toolz's history (cae4f87784^): a test moved between two test modules of a folder
    without ``__init__.py``; the old module's re-export ``from .test_core import ...``
    failed ("attempted relative import with no known parent package")."""
    files = {
        "pyproject.toml": "",
        "checks/test_core.py": "def test_one():\n    assert 1\n",
        "checks/test_recipes.py": "def test_freq():\n    assert 2\n\n\ndef test_count():\n"
        "    assert 3\n",
    }
    write_files(tmp_path, files)
    result = move(tmp_engine, tmp_path, "checks/test_recipes.py", "def test_freq", "test_core")
    apply_edits(result.edits, str(tmp_path))
    # As pytest imports it: its own folder first on sys.path, the root after it.
    code = "import sys; sys.path.append('..'); import test_recipes as r, checks.test_core as c"
    assert run(tmp_path, code + "; print(r.test_freq is c.test_freq)", "checks") == "True\n"

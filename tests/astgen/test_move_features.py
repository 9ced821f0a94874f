"""Features of a move: how the other modules of a project refer to the moved global, and
the learnt move shapes they select (real generated programs, real rope)."""

from __future__ import annotations

import json

import pytest

from lsp_server.astgen.client_features import (
    client_features,
    client_imports,
    module_client_features,
    module_names,
)
from lsp_server.astgen.driver import Config, generate, run
from lsp_server.astgen.report import group_failures
from lsp_server.trust import known_failures
from lsp_server.trust.known_failures import KnownFailures, matches, parse, shapes_from

MODULE = 'VALUE = 3\n\n\ndef f():\n    return "f%d" % VALUE\n'


def project(**clients: str) -> dict[str, str]:
    """A package ``pkg`` whose module ``m`` defines ``f``, plus ``clients`` (path with
    ``__`` for ``/``, without ``.py``)."""
    files = {"pkg/__init__.py": "", "pkg/m.py": MODULE, "pkg/other.py": ""}
    for key, text in clients.items():
        files[key.replace("__", "/").replace("/init", "/__init__") + ".py"] = text
    return files


@pytest.mark.parametrize(
    ("clients", "expected"),
    [
        ({"main": "from pkg.m import f\nprint(f())\n"}, {"client:from-import"}),
        ({"main": "from pkg.m import f as g\nprint(g())\n"}, {"client:from-import-as"}),
        ({"main": "from pkg.m import VALUE, f as f\n"}, {"client:from-import"}),
        ({"pkg__rel": "from .m import f\n"}, {"client:relative-import"}),
        (
            {"pkg__rel": "from .m import f as g\n"},
            {"client:relative-import", "client:from-import-as"},
        ),
        (
            {"pkg__rel": "from . import m\nprint(m.f())\n"},
            {"client:relative-module", "client:module-attribute"},
        ),
        ({"pkg__sub__deep": "from ..m import f\n"}, {"client:relative-import"}),
        ({"main": "import pkg.m\nprint(pkg.m.f())\n"}, {"client:module-attribute"}),
        ({"main": "import pkg.m as k\nprint(k.f())\n"}, {"client:module-attribute"}),
        ({"main": "from pkg import m\nprint(m.f())\n"}, {"client:module-attribute"}),
        ({"main": "from pkg.m import *\nprint(f())\n"}, {"client:star-import"}),
        (
            {"pkg__init": "from .m import f\n\n__all__ = ['f']\n"},
            {"client:relative-import", "client:reexport", "client:all"},
        ),
        (
            {"pkg__init": "from pkg.m import f\n"},
            {"client:from-import", "client:reexport"},
        ),
        # Other modules that only look alike refer to something else.
        ({"main": "from other.m import f\nimport m\nprint(m.f())\n"}, {"client:none"}),
        ({"main": "from pkg.m import VALUE\nprint(VALUE)\n"}, {"client:none"}),
        ({"main": "import pkg.m\nprint(pkg.m.VALUE)\n"}, {"client:none"}),
        ({"main": "def f(:\n"}, {"client:none"}),
        ({}, {"client:none"}),
    ],
)
def test_client_features(clients: dict[str, str], expected: set[str]) -> None:
    assert client_features(project(**clients), "pkg/m.py", "f") == expected


def test_module_names_follow_packages_and_plain_folders() -> None:
    files = ["pkg/__init__.py", "pkg/m.py", "src/lib/__init__.py", "src/lib/x.py", "tests/t.py"]
    assert module_names("pkg/m.py", files) == {"pkg.m"}
    assert module_names("pkg/__init__.py", files) == {"pkg"}
    assert module_names("src/lib/x.py", files) == {"src.lib.x", "lib.x"}
    assert module_names("tests/t.py", files) == {"tests.t", "t"}
    assert module_names("m.py", files) == {"m"}


def test_flat_and_src_layouts() -> None:
    flat = {"m.py": MODULE, "main.py": "from m import f as g\n"}
    assert client_features(flat, "m.py", "f") == {"client:from-import-as"}
    src = {
        "src/lib/__init__.py": "",
        "src/lib/m.py": MODULE,
        "tests/test_m.py": "from lib.m import f\n",
    }
    assert client_features(src, "src/lib/m.py", "f") == {"client:from-import", "layout:src"}


@pytest.mark.parametrize(
    ("clients", "expected"),
    [
        ({"main": "import pkg.m\n"}, {"module:import"}),
        ({"main": "import pkg.m as k\n"}, {"module:import-as"}),
        ({"main": "from pkg import m\n"}, {"module:from-package"}),
        ({"main": "from pkg.m import f\n"}, {"module:from-import"}),
        ({"pkg__rel": "from . import m\n"}, {"module:relative"}),
        ({"pkg__init": "from .m import f\n"}, {"module:relative", "module:reexport"}),
        ({"main": "import other\n"}, {"module:none"}),
    ],
)
def test_module_client_features(clients: dict[str, str], expected: set[str]) -> None:
    assert module_client_features(project(**clients), "pkg/m.py") == expected


def test_client_imports_lists_every_from_import_of_the_name() -> None:
    files = project(
        main="from pkg.m import f as g\nimport pkg.m\n",
        pkg__rel="from .m import VALUE\nfrom .m import f\n",
        pkg__init="from .m import f\n",
        unrelated="from other.m import f\n",
    )
    assert list(client_imports(files, "pkg/m.py", "f")) == [
        ("main.py", 1),
        ("pkg/__init__.py", 1),
        ("pkg/rel.py", 2),
    ]
    assert list(client_imports(files, "pkg/m.py", "VALUE")) == [("pkg/rel.py", 1)]


@pytest.fixture(scope="module")
def learnt() -> KnownFailures:
    """Shapes learnt from a real run of the move programs (rope alone: reks mends the
    imports rope leaves behind)."""
    config = Config(
        bound=2, generators=("modules",), refactorings=("move",), engines=("rope",), inverse=False
    )
    outcome = run(config)
    cases = generate(config)
    shapes = shapes_from(outcome, group_failures(outcome.results, cases), cases)
    return parse(json.loads(known_failures.dumps(shapes, {"rope": "x", "jedi": "y"})))


def test_learnt_move_shapes_carry_client_features(learnt: KnownFailures) -> None:
    moves = [s for s in learnt.shapes if s.refactoring == "move"]
    assert moves, "rope still leaves aliased imports of a moved function alone"
    assert all(s.features for s in moves)
    assert {"client:from-import-as"} in [set(s.features) for s in moves]


def _move(files: dict[str, str], known: KnownFailures):  # type: ignore[no-untyped-def]
    source = files["pkg/m.py"]
    offset = source.index("def f") + 4
    return matches(
        "move", source, offset, engine="rope", known=known, project_files=files, path="pkg/m.py"
    )


def test_move_with_plain_client_imports_matches_no_shape(learnt: KnownFailures) -> None:
    assert _move(project(main="from pkg.m import f\nprint(f())\n"), learnt) is None
    assert _move(project(main="import pkg.m as k\nprint(k.f())\n"), learnt) is None
    assert _move(project(), learnt) is None


def test_move_with_an_aliased_client_import_matches(learnt: KnownFailures) -> None:
    files = project(main="from pkg.m import f\nprint(f())\n", app="from pkg.m import f as g\n")
    shape = _move(files, learnt)
    assert shape is not None and shape.refactoring == "move"
    assert shape.features == {"client:from-import-as"}
    assert "ImportError" in shape.detail
    relative = _move(project(pkg__rel="from .m import f\n"), learnt)
    assert relative is not None and "client:relative-import" in relative.features


def test_move_without_the_project_matches_any_move_shape(learnt: KnownFailures) -> None:
    # Nothing tells the requests apart without the clients: the safe answer.
    source = MODULE
    shape = matches("move", source, source.index("def f") + 4, engine="rope", known=learnt)
    assert shape is not None and shape.refactoring == "move"


def test_packaged_move_shapes_need_an_aliased_or_relative_client() -> None:
    known = known_failures.load()
    moves = [s for s in known.shapes if s.refactoring == "move"]
    assert moves and all(s.features for s in moves)
    assert _move(project(main="from pkg.m import f\nprint(f())\n"), known) is None
    assert _move(project(main="from pkg.m import f as g\nprint(g())\n"), known) is not None

"""Static import closure on a real directory tree."""

from __future__ import annotations

from pathlib import Path

from lsp_server.rts.imports import ImportResolver


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_closure_follows_absolute_relative_and_nested_imports(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "src/pkg/__init__.py": "from .core import run\n",
            "src/pkg/core.py": "from . import util\nimport os\n",
            "src/pkg/util.py": "def f():\n    from pkg.sub import deep\n",
            "src/pkg/sub/__init__.py": "",
            "src/pkg/sub/deep.py": "",
            "src/pkg/unused.py": "",
            "tests/conftest.py": "import helpers\n",
            "tests/helpers.py": "",
            "tests/test_x.py": "try:\n    import pkg\nexcept ImportError:\n    pass\n",
        },
    )
    resolver = ImportResolver(tmp_path)
    assert resolver.closure("tests/test_x.py") == {
        "tests/test_x.py",
        "src/pkg/__init__.py",
        "src/pkg/core.py",
        "src/pkg/util.py",
        "src/pkg/sub/__init__.py",
        "src/pkg/sub/deep.py",
    }
    assert resolver.conftests("tests/test_x.py") == ["tests/conftest.py"]
    assert resolver.closure("tests/conftest.py") == {"tests/conftest.py", "tests/helpers.py"}


def test_unparsable_file_has_no_imports(tmp_path: Path) -> None:
    _tree(tmp_path, {"a.py": "import b\n", "b.py": "def (:\n"})
    assert ImportResolver(tmp_path).closure("a.py") == {"a.py", "b.py"}

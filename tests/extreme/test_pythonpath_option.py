"""Which folders pytest's ``pythonpath`` option puts on the import path, as the fork rule
(``fork_safety``) reads them from the project's configuration files: the folders named
count, and any other mention of a path edit in such a file makes every folder count
(``None``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.extreme.pythonpath_option import configured_folders


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src", "lib"]\n'),
        ("pyproject.toml", '[tool.pytest]\npythonpath = ["src", "lib"]\n'),  # pytest 9
        ("pytest.ini", "[pytest]\npythonpath = src lib\n"),
        ("tox.ini", "[pytest]\npythonpath = src\n  lib\n"),
        ("setup.cfg", "[tool:pytest]\npythonpath = src lib\n"),
    ],
)
def test_the_option_names_its_folders_relative_to_the_file(
    tmp_path: Path, name: str, text: str
) -> None:
    (tmp_path / name).write_text(text)
    assert configured_folders(tmp_path) == [tmp_path / "src", tmp_path / "lib"]


def test_files_without_a_path_edit_name_no_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-q"\n')
    (tmp_path / "tox.ini").write_text("[testenv]\ncommands = pytest\n")
    assert configured_folders(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # Another table of the same file edits the path: the option does not say it all.
        (
            "pyproject.toml",
            '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
            "[tool.hatch.envs.test]\nextra = \"import sys; sys.path.insert(0, 'x')\"\n",
        ),
        ("tox.ini", "[pytest]\npythonpath = src\n[testenv]\nsetenv = PYTHONPATH = {toxinidir}\n"),
        ("setup.cfg", "[tool:pytest]\npythonpath = src\naddopts = -p site.addsitedir\n"),
        # The option outside pytest's section (another tool's), or of an unknown form.
        ("setup.cfg", "[pytest]\npythonpath = src\n"),
        ("pyproject.toml", "[tool.pytest.ini_options]\npythonpath = 3\n"),
        ("pyproject.toml", "[tool.pytest.ini_options\npythonpath = ['src']\n"),  # not TOML
    ],
)
def test_any_other_path_edit_makes_every_folder_count(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    assert configured_folders(tmp_path) is None

"""What the server tells editor clients instead of letting them restate it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lsp_server.lsp.client_config import client_configuration, format_status
from lsp_server.project.files import EXCLUDED_DIRS, ROOT_ONLY_EXCLUDED_DIRS, is_excluded_path
from lsp_server.settings import Settings

VSCODE_FIXTURE = Path(__file__).parents[2] / "vscode-client/src/test/clientConfiguration.json"


def _glob_regex(glob: str) -> re.Pattern[str]:
    """A workspace glob (``**/x/**``, ``x/**``, ``*``) as a regular expression over
    root-relative ``/`` paths, the way VS Code's ``findFiles`` reads it."""
    out = ""
    for part in re.split(r"(\*\*/|/\*\*|\*)", glob):
        out += {"**/": "(?:.*/)?", "/**": "/.*", "*": "[^/]*"}.get(part, re.escape(part))
    return re.compile(out)


def _excluded_by_globs(path: str, globs: list[str]) -> bool:
    return any(_glob_regex(glob).fullmatch(path) for glob in globs)


def test_default_names_are_the_effective_settings() -> None:
    assert client_configuration(Settings())["defaultNames"] == {
        "extractedMethod": "extracted_method",
        "extractedVariable": "extracted_variable",
        "parameter": "new_parameter",
        "methodObject": "_MethodObject",
        "factory": "create",
    }
    settings = Settings.from_json({"reks": {"defaultNames": {"extractedMethod": "pulled_out"}}})
    names = client_configuration(settings)["defaultNames"]
    assert names["extractedMethod"] == "pulled_out" and names["factory"] == "create"


def test_exclusion_globs_cover_every_excluded_folder() -> None:
    exclusions = client_configuration(Settings())["exclusions"]
    globs = exclusions["globs"]
    assert EXCLUDED_DIRS and ROOT_ONLY_EXCLUDED_DIRS
    for name in EXCLUDED_DIRS:
        for path in (f"{name}/m.py", f"src/{name}/m.py", f"a/b/{name}/c/m.py"):
            assert _excluded_by_globs(path, globs), path
            assert is_excluded_path(path.split("/")), path
    for name in ROOT_ONLY_EXCLUDED_DIRS:
        assert _excluded_by_globs(f"{name}/lib/m.py", globs), name
        # deeper down it is a package like any other
        assert not _excluded_by_globs(f"src/{name}/m.py", globs), name
        assert not is_excluded_path(["src", name, "m.py"])
    assert _excluded_by_globs("src/pkg.egg-info/PKG-INFO", globs)
    for project_file in ("m.py", "pkg/__init__.py", "src/pkg/util.py", "tests/test_m.py"):
        assert not _excluded_by_globs(project_file, globs), project_file
    assert exclusions["dirs"] == sorted(EXCLUDED_DIRS)
    assert exclusions["rootOnlyDirs"] == sorted(ROOT_ONLY_EXCLUDED_DIRS)
    assert exclusions["dirSuffixes"] == [".egg-info"]


def test_status_texts_render_what_the_clients_showed() -> None:
    status = client_configuration(Settings())["status"]
    assert format_status(status["text"], {"skipped": 12, "affected": 1}) == (
        "12 tests skipped by refactorings · 1 affected"
    )
    assert format_status(status["text"], {"skipped": 1, "affected": 0}) == (
        "1 test skipped by refactorings · 0 affected"
    )
    tooltip = status["tooltip"]
    assert format_status(tooltip["affected"], {"affected": 1}) == (
        "1 test affected by edits: click to run them."
    )
    assert format_status(tooltip["skipped"], {"skipped": 2}) == (
        "2 tests need not run: only refactorings touched what they depend on."
    )
    assert format_status(tooltip["more"], {"more": 4}) == "… and 4 more"
    assert tooltip["noneAffected"] == "No test is affected by your edits."
    assert tooltip["listed"] == 10


def test_is_json_and_each_call_is_a_fresh_copy() -> None:
    first = client_configuration(Settings())
    assert json.loads(json.dumps(first)) == first
    first["status"]["tooltip"]["listed"] = 0
    first["exclusions"]["globs"].clear()
    second = client_configuration(Settings())
    assert second["status"]["tooltip"]["listed"] == 10 and second["exclusions"]["globs"]


def test_the_vscode_tests_use_what_the_server_serves() -> None:
    # The extension's unit tests render statuses and destinations from this file.
    fixture = json.loads(VSCODE_FIXTURE.read_text(encoding="utf-8"))
    assert fixture == client_configuration(Settings())

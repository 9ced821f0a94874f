"""The Lua module in real Neovim 0.7.2 and 0.11: it loads, and its client-side helpers work."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsp_server.editors import neovim_module

from .nvim import run_lua
from .tools import LUA_DIR, Neovim

# The `reks` console script, run with this interpreter.
_MAIN = "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))"


def test_reks_editor_neovim_prints_the_shipped_module(tmp_path: Path) -> None:
    printed = subprocess.run(
        [sys.executable, "-c", _MAIN, "editor", "neovim"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert printed.stdout == (LUA_DIR / "reks.lua").read_text(encoding="utf-8")
    assert printed.stdout == neovim_module()
    assert "function M.setup" in printed.stdout

    target = tmp_path / "lua"
    target.mkdir()
    subprocess.run(
        [sys.executable, "-c", _MAIN, "editor", "neovim", "-o", str(target)],
        check=True,
        capture_output=True,
    )
    assert (target / "reks.lua").read_text(encoding="utf-8") == neovim_module()


def test_module_helpers_in_real_neovim(nvim: Neovim, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "pkg" / "sub").mkdir(parents=True)
    (project / ".venv" / "lib").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname='p'\n")
    for rel in (
        "app.py",
        "pkg/__init__.py",
        "pkg/util.py",
        "pkg/sub/__init__.py",
        ".venv/lib/site.py",
    ):
        (project / rel).write_text("x = 1\n")
    result = run_lua(
        nvim,
        f"""
        local reks = require("reks")
        reks.setup({{
          python = "/nonexistent/python",
          settings = {{ onSave = {{ "organizeImports" }} }},
        }})
        local root = {str(project)!r}
        local text = "def f():\\n    x = extracted_method()\\n\\ndef extracted_method():\\n"
        reks.status = {{ skipped = 3, affected = 1 }}
        local commands = vim.api.nvim_get_commands({{}})
        report({{
          root = reks.find_root(root .. "/pkg/sub/__init__.py"),
          modules = reks.move_destinations(root, root .. "/app.py", false),
          packages = reks.move_destinations(root, nil, true),
          nearest = reks.nearest_occurrence(text, "extracted_method", 15),
          statusline = reks.statusline(),
          cmd = reks.cmd(),
          commands = {{
            commands.ReksRunAffectedTests ~= nil, commands.ReksExtremeAnalysis ~= nil,
            commands.ReksCommand ~= nil, commands.ReksExtract ~= nil, commands.ReksStatus ~= nil,
            commands.ReksExplainWeakTests ~= nil,
          }},
          on_save = reks.config.settings.onSave,
        }})
        """,
        tmp_path,
    )
    assert result["root"] == str(project)
    assert result["modules"] == ["pkg/__init__.py", "pkg/sub/__init__.py", "pkg/util.py"]
    assert result["packages"] == ["pkg", "pkg/sub"]
    assert result["nearest"] == "def f():\n    x = extracted_method()".index("extracted_method")
    assert result["statusline"] == "3 tests skipped by refactorings · 1 affected"
    assert result["cmd"] == ["/nonexistent/python", "-m", "lsp_server"]
    assert result["commands"] == [True] * 6
    assert result["on_save"] == ["organizeImports"]


def test_move_destinations_leave_out_what_the_server_excludes(nvim: Neovim, tmp_path: Path) -> None:
    import json

    from lsp_server.lsp.client_config import client_configuration
    from lsp_server.settings import Settings

    project = tmp_path / "proj"
    for rel in (
        "app.py",
        "venv/lib/site.py",
        "node_modules/q.py",
        "build/lib/out.py",
        "src/build/steps.py",
        "pkg.egg-info/meta.py",
    ):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("x = 1\n")
    served = json.dumps(client_configuration(Settings()))
    result = run_lua(
        nvim,
        f"""
        local reks = require("reks")
        local served = vim.fn.json_decode({served!r})
        local capabilities = {{ experimental = {{ reks = served }} }}
        local client = {{ id = 4242, server_capabilities = capabilities }}
        reks.server_configuration(client, function(config)
          local root = {str(project)!r}
          report({{
            served = reks.move_destinations(root, nil, false, config.exclusions),
            without = reks.move_destinations(root, nil, false, nil),
            names = config.defaultNames,
          }})
        end)
        """,
        tmp_path,
    )
    assert result["served"] == ["app.py", "src/build/steps.py"], result
    assert len(result["without"]) == 6
    assert result["names"]["extractedMethod"] == "extracted_method"


def test_uncertain_changes_are_confirmed_before_they_are_applied(
    nvim: Neovim, tmp_path: Path
) -> None:
    """reks marks uncertain rename changes ``needsConfirmation``; Neovim ignores that, so
    the module asks: all changes, the certain ones only, or nothing."""
    target = tmp_path / "dispatch.py"
    target.write_text('def run():\n    pass\n\ngetattr(m, "run")\n')
    uri = target.as_uri()
    result = run_lua(
        nvim,
        f"""
        local reks = require("reks")
        local function edit()
          local function at(line, first, last, text, id)
            return {{ range = {{ start = {{ line = line, character = first }},
                               ["end"] = {{ line = line, character = last }} }},
                      newText = text, annotationId = id }}
          end
          return {{
            documentChanges = {{ {{ textDocument = {{ uri = {uri!r} }},
              edits = {{ at(0, 4, 7, "go"), at(3, 12, 15, "go", "reks.uncertain.0") }} }} }},
            changeAnnotations = {{ ["reks.uncertain.0"] = {{
              label = "a string", needsConfirmation = true }} }},
          }}
        end
        local bufnr = vim.fn.bufadd({str(target)!r})
        vim.fn.bufload(bufnr)
        local function text()
          return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\\n")
        end
        local shown = nil
        local out = {{ places = reks.uncertain_changes(edit()) }}
        out.cancel = reks.apply_edit(edit(), nil, function(choices, lines)
          shown = lines
          return choices[3]
        end)
        out.after_cancel = text()
        reks.apply_edit(edit(), nil, function(choices) return choices[2] end)
        out.after_certain = text()
        vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, {{ "def run():", "    pass", "",
          'getattr(m, "run")' }})
        reks.apply_edit(edit(), nil, function(choices) return choices[1] end)
        out.after_all = text()
        out.shown = shown
        report(out)
        """,
        tmp_path,
    )
    assert result.get("error") is None, result
    (place,) = result["places"]
    assert (place["line"], place["character"], place["label"]) == (4, 13, "a string")
    assert result["shown"] == [f"{target}:4:13 a string"]
    assert result["after_cancel"] == 'def run():\n    pass\n\ngetattr(m, "run")'
    assert result["after_certain"] == 'def go():\n    pass\n\ngetattr(m, "run")'
    assert result["after_all"] == 'def go():\n    pass\n\ngetattr(m, "go")'


def test_run_affected_tests_result_fills_the_quickfix_list(nvim: Neovim, tmp_path: Path) -> None:
    """Issue 16, item 8: the counts are echoed and the failures open as a quickfix list
    (the result is what ``reks.runAffectedTests`` answers, see tests/lsp/test_test_selection)."""
    tests = tmp_path / "test_calc.py"
    tests.write_text("def test_ok():\n    pass\n\n\ndef test_bad():\n    assert 1 == 2\n")
    failure = {
        "nodeid": "test_calc.py::test_bad",
        "uri": tests.as_uri(),
        "line": 4,
        "message": "assert 1 == 2",
    }
    result = run_lua(
        nvim,
        f"""
        local reks = require("reks")
        reks.setup({{ python = "/nonexistent/python" }})
        local failures = vim.fn.json_decode({json.dumps(failure)!r})
        local run = {{ failures = {{ failures }} }}
        reks.show_test_run({{ message = "1 passed, 1 failed", roots = {{ run }} }})
        local failed = vim.fn.getqflist({{ title = 1, items = 1 }})
        local opened = vim.fn.getqflist({{ winid = 1 }}).winid ~= 0
        local echoed = vim.fn.execute("messages")
        local passed = {{ failures = {{}} }}
        reks.show_test_run({{ message = "2 passed, 0 failed", roots = {{ passed }} }})
        report({{
          title = failed.title,
          items = vim.tbl_map(function(i)
            return {{ vim.api.nvim_buf_get_name(i.bufnr), i.lnum, i.type, i.text }}
          end, failed.items),
          opened = opened,
          echoed = echoed,
          after_pass = #vim.fn.getqflist(),
        }})
        """,
        tmp_path,
    )
    assert result["title"] == "reks: failing tests"
    assert result["items"] == [[str(tests), 5, "E", "test_calc.py::test_bad: assert 1 == 2"]]
    assert result["opened"] is True
    assert "reks: run affected tests: 1 passed, 1 failed" in result["echoed"]
    assert result["after_pass"] == 0

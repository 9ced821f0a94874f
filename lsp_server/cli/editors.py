"""``reks editor neovim|vscode``: what to install in an editor."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import lsp_server
from lsp_server.project.text import write_atomic

_VSCODE_HELP = """\
reks for VS Code: build and install the extension from a clone of reks:

  cd vscode-client && npm ci && npm run package
  code --install-extension reks.vsix

It starts `python -m lsp_server` with the interpreter selected in the Python extension
(fallback: the reks.server.pythonPath setting, then python3). The extension carries its own
copy of reks (bundled/libs in the extension) and runs it with that interpreter when reks is
not installed there; the interpreter needs only pytest, which runs your tests.
To install reks into the interpreter instead (reks is not on the package index), from
{source}:
  <interpreter> -m pip install -e {source}
This interpreter has it already: {python}
"""


def _source() -> str:
    """Where reks can be installed from: the clone this copy runs from, when it does."""
    here = Path(lsp_server.__file__).resolve().parent.parent
    return str(here) if (here / "pyproject.toml").exists() else "a clone of reks"


def _neovim(args: argparse.Namespace) -> int:
    from lsp_server.editors import neovim_module

    text = neovim_module()
    if args.output is None:
        sys.stdout.write(text)
        return 0
    target = neovim_target(args.output)
    try:
        write_atomic(target, text)  # creates the folders; a killed run leaves the old file
    except OSError as exc:
        print(f"reks: cannot write {target}: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {target}", file=sys.stderr)
    return 0


def neovim_target(output: str) -> Path:
    """The file ``-o OUTPUT`` means: OUTPUT itself when it names a ``.lua`` file, else
    ``reks.lua`` in the folder OUTPUT (which need not exist yet)."""
    target = Path(output).expanduser()
    folder = output.endswith(("/", os.sep)) or target.is_dir() or target.suffix != ".lua"
    return target / "reks.lua" if folder else target


def _vscode(args: argparse.Namespace) -> int:
    sys.stdout.write(_VSCODE_HELP.format(python=sys.executable, source=_source()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("editor", help="editor support: the Neovim module, VS Code set-up")
    editors = p.add_subparsers(dest="editor", metavar="EDITOR", required=True)
    nvim = editors.add_parser(
        "neovim",
        help="print the Lua module for Neovim's built-in LSP client",
        description="Print reks.lua (or write it with -o). Put it on 'runtimepath' "
        "(e.g. ~/.config/nvim/lua/reks.lua) and call require('reks').setup{} in init.lua.",
    )
    nvim.add_argument(
        "-o", "--output", metavar="PATH", help="write to PATH (a file or a folder) instead"
    )
    nvim.set_defaults(handler=_neovim)
    code = editors.add_parser("vscode", help="how to build and install the VS Code extension")
    code.set_defaults(handler=_vscode)

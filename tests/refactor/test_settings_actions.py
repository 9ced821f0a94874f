"""Settings payloads and the syntax-tree listing of code actions."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from lsp_server.refactor import cursor
from lsp_server.refactor.actions import offers_at
from lsp_server.settings import Settings

SOURCE = """\
import os


class Account:
    def __init__(self, balance):
        self.balance = balance

    def deposit(self, amount, note=""):
        total = self.balance + amount
        self.balance = total
        return total


def report(account):
    return f"{account.balance}"
"""


def titles(offset: int, end: int | None = None) -> list[str]:
    return [o.kind for o in offers_at(SOURCE, offset, end)]


def test_settings_from_vscode_payload_and_bad_values():
    settings = Settings.from_json(
        {"reks": {"actions": {"inline": False, "move": "no"}, "defaultNames": {"factory": "make"}}}
    )
    assert settings.actions.inline is False
    assert settings.actions.move is True  # wrong type keeps the default
    assert settings.defaultNames.factory == "make"
    settings.update({"defaultNames": {"factory": "not a name"}, "onSave": ["organizeImports", "x"]})
    assert settings.defaultNames.factory == "make" and settings.onSave == ["organizeImports"]
    assert settings.onSaveTimeout == 1.5
    settings.update({"onSaveTimeout": 20})
    assert settings.onSaveTimeout == 20.0
    settings.update({"onSaveTimeout": -1})
    settings.update({"onSaveTimeout": True})
    assert settings.onSaveTimeout == 20.0


def test_offers_follow_the_syntax_tree():
    at = SOURCE.index
    # self.balance holds no class of the project: nowhere to move `deposit` to
    assert "refactor.move.method" not in titles(at("def deposit") + 4)
    assert "refactor.rewrite.introduceFactory" in titles(at("class Account") + 6)
    assert "refactor.move.global" in titles(at("def report") + 4)
    local = titles(at("total = self") + 1)
    assert "refactor.inline.variable" in local and "refactor.rewrite.localToField" in local
    assert "refactor.rewrite.encapsulateField" in titles(at("self.balance = balance") + 6)
    param = titles(at('note=""') + 1)
    assert "refactor.inline.parameter" in param and "refactor.rewrite.signature.remove" in param
    start = at("self.balance + amount")
    selected = titles(start, start + len("self.balance + amount"))
    assert "refactor.extract.variable" in selected and "refactor.extract.method" in selected
    assert "source.organizeImports" in selected
    assert "refactor.extract.variable" not in titles(start, start + 5)  # "self." is no expression


def test_unparsable_text_offers_nothing():
    assert offers_at("def f(:\n", 3) == []


def _module_of(functions: int) -> str:
    functions_text = (f"def f{i}(a, b):\n    return a + b * {i}\n" for i in range(functions))
    return SOURCE + "\n".join(functions_text)


def _warm_listing_work(functions: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """(whole-module parses, module walks, syntax-tree child listings) of a second listing
    of code actions in a module of ``functions`` functions, its tree given (as the editor
    does: the outline service parses once per document version)."""
    text = _module_of(functions)
    tree = ast.parse(text)
    first = text.index("def f0")
    offers_at(text, text.index("return a", first) + 7, None, tree)  # walks the module once
    last = text.index(f"def f{functions - 1}")
    counts = {"parse": 0, "walk": 0, "children": 0}
    real_parse, real_children, real_facts = ast.parse, ast.iter_child_nodes, cursor.module_facts

    def parse(source: Any, *args: Any, **kwargs: Any) -> Any:
        counts["parse"] += len(source) >= len(text) // 2
        return real_parse(source, *args, **kwargs)

    def children(node: ast.AST) -> Any:
        counts["children"] += 1
        return real_children(node)

    def facts(module: ast.Module) -> Any:
        counts["walk"] += 1
        return real_facts(module)

    with monkeypatch.context() as patch:
        patch.setattr(ast, "parse", parse)
        patch.setattr(ast, "iter_child_nodes", children)
        patch.setattr(cursor, "module_facts", facts)
        at_name = offers_at(text, last + 5, None, tree)
        at_use = offers_at(text, text.index("return a", last) + 7, None, tree)
    assert at_name and at_use
    return counts["parse"], counts["walk"], counts["children"]


def test_listing_on_a_large_file_does_work_of_the_cursor_not_of_the_file(monkeypatch):
    """Listing code actions again in a parsed module neither reparses nor walks it: its
    work is the same in a module ten times as long (the timing: bench/code_action_listing.py)."""
    small = _warm_listing_work(300, monkeypatch)
    large = _warm_listing_work(3000, monkeypatch)
    assert large[:2] == (0, 0)
    assert large == small

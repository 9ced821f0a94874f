"""Settings payloads and the syntax-tree listing of code actions."""

from __future__ import annotations

import time

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


def test_listing_is_fast_on_a_large_file():
    big = SOURCE + "\n".join(f"def f{i}(a, b):\n    return a + b * {i}\n" for i in range(3000))
    import ast

    tree = ast.parse(big)
    offset = big.index("def f2999") + 5
    start = time.perf_counter()
    offers = offers_at(big, offset, None, tree)
    assert offers and time.perf_counter() - start < 0.1

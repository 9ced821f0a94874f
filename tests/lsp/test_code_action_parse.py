"""Code actions after an edit parse the new text once, on a thread, however many
requests arrive while it is being parsed (issue 15 item 7)."""

from __future__ import annotations

import ast
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest

from lsp_server.lsp.features.refactoring import code_actions


def test_requests_during_a_parse_wait_for_it_instead_of_parsing_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parses: list[int] = []
    real_parse = ast.parse
    text = "def f():\n    return 1\n" * 100

    def counted_parse(source: Any, *args: Any, **kwargs: Any) -> ast.Module:
        if isinstance(source, str) and source.startswith(text):
            parses.append(threading.get_ident())
            time.sleep(0.2)  # a long file
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counted_parse)
    feature: Any = SimpleNamespace(syntax_trees={})
    with ThreadPoolExecutor(4) as pool:
        trees = list(
            pool.map(lambda _: code_actions._tree(feature, "file:///m.py", text), range(4))
        )
    assert len(parses) == 1
    assert all(tree is trees[0] for tree in trees) and trees[0] is not None
    with ThreadPoolExecutor(2) as pool:
        edited = list(
            pool.map(
                lambda _: code_actions._tree(feature, "file:///m.py", text + "x = 2\n"), range(2)
            )
        )
    assert len(parses) == 2 and edited[0] is edited[1] is not trees[0]

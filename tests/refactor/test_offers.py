"""The code actions listed at each kind of cursor position, in the order the editor shows them.

Pins the whole list (titles, order, arguments) so that a change in how ``offers_at`` is
organised cannot change what the user sees.
"""

from __future__ import annotations

import pytest

from lsp_server.refactor.actions import offers_at

SOURCE = """\
import os

LIMIT = 10


class Ledger:
    pass


class Account:
    def __init__(self, balance, owner: Ledger):
        self.balance = balance
        self.owner = owner
        self.history = Ledger()
        self.count = 0

    def deposit(self, amount, note=""):
        total = self.balance + amount
        self.balance = total
        return total + LIMIT


def report(account, width=8):
    line = f"{account.balance}"
    return line.rjust(width) + helper(width)


def helper(n):
    return n * 2
"""

EXPR = "self.balance + amount"
# Where the cursor (or selection) is -> the offers before the two module-wide ones.
CASES: dict[str, tuple[int, int | None, list[str]]] = {
    "class name": (
        SOURCE.index("class Account") + 6,
        None,
        ["Move class `Account` to module…", "Introduce factory for `Account`"],
    ),
    "method name": (
        SOURCE.index("def deposit") + 4,
        None,
        [
            "Move method `deposit` to the class of `self.owner`",
            "Move method `deposit` to the class of `self.history`",
            "Inline function `deposit`",
            "Turn `deposit` into a method object",
            "Normalize the calls of `deposit`",
        ],
    ),
    "def keyword of a method": (
        SOURCE.index("def deposit") + 1,
        None,
        [
            "Move method `deposit` to the class of `self.owner`",
            "Move method `deposit` to the class of `self.history`",
            "Inline function `deposit`",
            "Turn `deposit` into a method object",
            "Normalize the calls of `deposit`",
        ],
    ),
    "class keyword": (
        SOURCE.index("class Account") + 2,
        None,
        ["Move class `Account` to module…", "Introduce factory for `Account`"],
    ),
    "dunder method name": (
        SOURCE.index("def __init__") + 5,
        None,
        [
            "Inline function `__init__`",
            "Turn `__init__` into a method object",
            "Normalize the calls of `__init__`",
        ],
    ),
    "function name": (
        SOURCE.index("def report") + 4,
        None,
        [
            "Move function `report` to module…",
            "Use function `report` where its body is repeated",
            "Inline function `report`",
            "Turn `report` into a method object",
            "Normalize the calls of `report`",
        ],
    ),
    "self parameter": (SOURCE.index("self, amount") + 1, None, ["Remove parameter `self`"]),
    "parameter with a default": (
        SOURCE.index('note=""') + 1,
        None,
        [
            "Inline default of parameter `note`",
            "Remove parameter `note`",
            "Move parameter `note` left",
        ],
    ),
    "first parameter": (SOURCE.index("account, width") + 1, None, ["Remove parameter `account`"]),
    "second parameter": (
        SOURCE.index("width=8") + 1,
        None,
        [
            "Inline default of parameter `width`",
            "Remove parameter `width`",
            "Move parameter `width` left",
        ],
    ),
    "local of a method": (
        SOURCE.index("total = self") + 1,
        None,
        ["Inline variable `total`", "Turn local `total` into a field"],
    ),
    "self attribute": (
        SOURCE.index("self.owner = owner") + 6,
        None,
        ["Encapsulate field `owner`"],
    ),
    "module global": (SOURCE.index("LIMIT = 10") + 1, None, ["Inline variable `LIMIT`"]),
    "global used in a method": (
        SOURCE.index("+ LIMIT") + 3,
        None,
        ["Introduce parameter for `LIMIT`"],
    ),
    "call of a module function": (
        SOURCE.index("helper(width)") + 2,
        None,
        ["Inline function `helper`", "Introduce parameter for `helper`"],
    ),
    "local of a function": (
        SOURCE.index("line.rjust") + 1,
        None,
        ["Inline variable `line`", "Introduce parameter for `line`"],
    ),
    "blank line": (SOURCE.index("\n\nLIMIT"), None, []),
    "selected expression": (
        SOURCE.index(EXPR),
        SOURCE.index(EXPR) + len(EXPR),
        [
            "Extract variable",
            "Extract variable (and similar)",
            "Extract method",
            "Extract method (and similar)",
            "Extract function (module level)",
        ],
    ),
    "selected statements": (
        SOURCE.index("        total = self"),
        SOURCE.index("        return total +"),
        ["Extract method", "Extract method (and similar)", "Extract function (module level)"],
    ),
    "selected module statement": (
        SOURCE.index("LIMIT = 10"),
        SOURCE.index("LIMIT = 10") + len("LIMIT = 10"),
        ["Extract method", "Extract method (and similar)", "Inline variable `LIMIT`"],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_offers_in_order(case: str) -> None:
    offset, end, expected = CASES[case]
    offers = offers_at(SOURCE, offset, end)
    assert [o.title for o in offers] == [*expected, "Organize imports", "Move module to package…"]
    organize, move_module = offers[-2:]
    assert (organize.kind, organize.action, organize.offset) == (
        "source.organizeImports",
        "organize-imports",
        0,
    )
    assert move_module.args == {"module": True} and move_module.needs == ("destination",)


def test_offer_arguments() -> None:
    def offers(needle: str, delta: int, end: int | None = None) -> dict[str, object]:
        found = offers_at(SOURCE, SOURCE.index(needle) + delta, end)
        return {
            o.kind: (o.offset, o.end, o.args, o.needs, o.default_name, o.name_arg) for o in found
        }

    method = offers("def deposit", 4)
    at = SOURCE.index("deposit")
    assert method["refactor.move.method"] == (
        at,
        None,
        {"destination": "history"},
        (),
        None,
        "name",
    )
    assert offers("def deposit", 1) == method  # on the keyword: the offers on the name
    assert method["refactor.rewrite.methodObject"] == (
        at,
        None,
        {},
        (),
        "methodObject",
        "classname",
    )
    assert method["refactor.rewrite.signature.normalize"][2] == {"changes": [{"op": "normalize"}]}
    width = offers("width=8", 1)
    assert width["refactor.rewrite.signature.remove"][2] == {
        "changes": [{"op": "remove", "index": 1}]
    }
    assert width["refactor.rewrite.signature.reorder"] == (
        SOURCE.index("width=8"),
        None,
        {"changes": [{"op": "reorder", "order": [1, 0]}]},
        (),
        None,
        "name",
    )
    assert offers("class Account", 6)["refactor.move.global"][3] == ("destination",)
    assert offers("+ LIMIT", 3)["refactor.rewrite.parameter.introduce"][4] == "parameter"
    start = SOURCE.index(EXPR)
    selected = offers(EXPR, 0, start + len(EXPR))
    assert selected["refactor.extract.variable.similar"] == (
        start,
        start + len(EXPR),
        {"similar": True},
        (),
        "extractedVariable",
        "name",
    )
    assert selected["refactor.extract.function"][2] == {"similar": False, "global": True}
    assert selected["refactor.extract.method"][4] == "extractedMethod"


def test_no_imports_no_organize_imports() -> None:
    offers = offers_at("def f(a):\n    return a\n", 4)
    assert [o.kind for o in offers][-1] == "refactor.move.module"
    assert "source.organizeImports" not in [o.kind for o in offers]


def test_move_method_only_to_classes_of_the_project() -> None:
    source = (
        "from collections import Counter\n"
        "from .store import Store\n"
        "from bank.audit import Auditor\n"
        "from pathlib import Path\n"
        "\n"
        "\n"
        "class VersionedSet:\n"
        "    def __init__(self, path: Path, auditor: Auditor):\n"
        "        self._version = 0\n"
        "        self._elements = []\n"
        "        self._counts = Counter()\n"
        "        self._store = Store()\n"
        "        self._path = path\n"
        "        self._auditor = auditor\n"
        "\n"
        "    def add(self, item):\n"
        "        self._version += 1\n"
    )
    at = source.index("def add") + 4

    def destinations(project_module: object = None) -> list[object]:
        found = offers_at(source, at, project_module=project_module)  # type: ignore[arg-type]
        return [o.args["destination"] for o in found if o.kind == "refactor.move.method"]

    assert destinations() == ["_store"]  # a relative import is project code
    assert destinations(lambda module: module == "bank.audit") == ["_store", "_auditor"]

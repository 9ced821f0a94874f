"""Which top-level bindings can raise at import (``rts.import_raise``): proved safe or not."""

from __future__ import annotations

import ast
import sys

import pytest

from lsp_server.rts.import_raise import may_raise
from lsp_server.rts.import_scope import Scope

# ``LIMIT``: a name surely bound to what only the import knows (``LIMIT = 3`` is computed:
# ``rts.constant_values``).
PRELUDE = (
    "import functools\nimport typing\nimport json as j\nfrom helpers import combine\n"
    "LIMIT = j.loads('3')\n"
)

STORES = (
    "class S:\n    __slots__ = ('a', 'k')\n    def __init__(self, a, b=None, *, k=1):\n"
    "        'doc'\n        self.a = a\n        self.k = k\n"
)


def _last_may_raise(source: str) -> bool:
    tree = ast.parse(source)
    scope = Scope(tree, frozenset(sys.stdlib_module_names))
    for stmt in tree.body[:-1]:
        may_raise(stmt, scope)  # as rts.bindings judges every binding in order
        scope.after(stmt)
    return may_raise(tree.body[-1], scope)


@pytest.mark.parametrize(
    "statement",
    [
        "X = (LIMIT, -1.5, None, 'a', {'k': [combine]})",
        "X = lambda y=LIMIT: missing",
        "X: typing.Optional[int] = j.dumps",
        "def f(x: int | None = LIMIT, *a: str) -> list[typing.Any]: return missing",
        "@property\ndef f(): ...",
        "@functools.lru_cache(maxsize=None)\ndef f(): ...",
        "class C:\n    x = 1\n    y = x\n    @property\n    def p(self): ...\n    @p.setter\n"
        "    def p(self, v): ...",
        "class E(ValueError):\n    'doc'",
        "import os, json",
        "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass P:\n    x: int\n"
        "    y: int = 0\n    z: tuple = (1, 'a')\n    def norm(self): ...",
        # No-argument calls of builtin constructors and of the module's classes that
        # define no __init__/__new__ (cachetools: ``__size = _DefaultSize()``).
        "X = (object(), dict(), frozenset())",
        "@functools.total_ordering\nclass C:\n    def __lt__(self, other): ...",
        "from functools import total_ordering\n@total_ordering\nclass C:\n    __slots__ = ()\n"
        "    def __ge__(self, other): ...",
        "class S:\n    __slots__ = ()\n    def size(self): ...\nclass T(S):\n    pass\nX = T()",
        # ``__set_name__`` runs for a descriptor put in a class body, not for a subclass
        # (cachetools bb72c21aab: ``DeprecatedDescriptorBase(DescriptorBase)``).
        "class D:\n    def __set_name__(self, owner, name): ...\nclass C(D):\n"
        "    def __init__(self, x=None): ...",
        "import collections.abc\nclass S:\n    pass\nclass C(collections.abc.MutableMapping):"
        "\n    m = object()\n    s = S()\n    def __init__(self, n=None): ...\nclass D(C):\n"
        "    def __init__(self, n, t): ...",
        # A constant pattern that compiles; argument-less standard-library constructors; a
        # dict the class body built updated with another (boltons' ``FunctionBuilder``).
        # A class whose __init__ only stores, called with arguments that fit.
        STORES + "X = S(LIMIT, k=None)",
        STORES + "X = S(a={}, b=[1])",
        "import re\nX = re.compile(r'\\*\\s*,  # a star', re.VERBOSE | re.I)",
        "import re\nclass C:\n    m = re.compile('a+', flags=re.M)",
        "import itertools\nclass C:\n    n = itertools.count()",
        "from collections import namedtuple\nP = namedtuple('P', 'a b', defaults=(None,))",
        "import collections\nclass C:\n    P = collections.namedtuple('P', ['x', 'y'], rename=1)",
        "class C:\n    a = {'x': list}\n    d = {'y': dict}\n    d.update(a)",
        # typing's forms, checked as importing would (itsdangerous, pyjwt).
        "T = typing.TypeVar('T', bound=typing.Union[str, bytes])",
        "T = typing.TypeVar('T', int, 'S', covariant=True)",
        "from typing import TypeVar\nT = TypeVar('T', bound=str | None)",
        "if typing.TYPE_CHECKING:\n    X = missing\nelse:\n    X = LIMIT",
        "from typing import TypedDict\nclass O(TypedDict, total=False):\n    'doc'\n"
        "    a: int\n    'about a'\n    b: list[typing.Any]\nclass P(O):\n    c: 'O'",
    ],
)
def test_bindings_that_cannot_raise(statement: str) -> None:
    assert not _last_may_raise(PRELUDE + statement)


@pytest.mark.parametrize(
    "statement",
    [
        "X = MISSING",
        "@lru_cache(maxsize=None)\ndef f(): ...",
        "@missing.property\ndef f(): ...",
        "X = int('x')",
        "X = j.nonexistent",
        "X = {LIMIT}",
        "a, b = LIMIT",
        "def f(x=MISSING): ...",
        "def f(x: Later): ...",
        "@dataclass\nclass C:\n    x: int = 1",
        "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int = 0\n    y: int",
        "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: list = []",
        "from dataclasses import dataclass\n@dataclass(order=True)\nclass P:\n    x: int = 0",
        "from dataclasses import dataclass\n@dataclass\nclass P(LIMIT):\n    x: int = 0",
        "class C(combine):\n    pass",
        "class C:\n    x = y",
        "class D:\n    def __set_name__(self, owner, name): ...\nclass C:\n    x = D()",
        "from os import nonexistent",
        "import not_a_stdlib_module",
        # More than one base: no consistent MRO, or instance layouts that conflict.
        "class A:\n    pass\nclass B(A):\n    pass\nclass C(A, B):\n    pass",
        "class C(object, ValueError):\n    pass",
        "class C(OSError, StopIteration):\n    pass",
        "class S:\n    def __init__(self, n): ...\nX = S()",
        "class S:\n    pass\nclass T(S):\n    __new__ = combine\nX = T()",
        "class S:\n    pass\nif LIMIT:\n    S = combine\nX = S()",
        "class S(ValueError):\n    pass\nX = S()",
        "dict = combine\nX = dict()",
        "if LIMIT:\n    dict = combine\nX = dict()",
        "X = object(1)",
        STORES + "X = S()",
        STORES + "X = S(1, 2, 3)",
        STORES + "X = S(1, c=2)",
        STORES + "X = S(1, a=2)",
        STORES + "X = S(*LIMIT)",
        STORES + "X = S(MISSING)",
        STORES.replace("self.k = k", "self.j = k") + "X = S(1)",
        STORES.replace("self.k = k", "self.k = k.real") + "X = S(1)",
        STORES.replace("__slots__ = ('a', 'k')", "k = property()") + "X = S(1)",
        STORES.replace("class S:", "class S(dict):") + "X = S(1)",
        STORES + "S = combine\nX = S(1)",
        "@functools.total_ordering\nclass C:\n    def __eq__(self, other): ...",
        "@combine\nclass C:\n    def __lt__(self, other): ...",
        "total_ordering = combine\n@total_ordering\nclass C:\n    def __lt__(self, other): ...",
        "class S:\n    pass\nclass C:\n    S = combine\n    x = S()",
        "import re\nX = re.compile('(a')",
        "import re\nX = re.compile(LIMIT)",
        "import re\nX = re.compile('a', LIMIT)",
        "import itertools\nX = itertools.count(LIMIT, combine)",
        "from collections import namedtuple\nP = namedtuple('P', 'a a')",
        "from collections import namedtuple\nP = namedtuple('P', ['a'], defaults=[1, 2])",
        "from collections import namedtuple\nP = namedtuple('P', LIMIT)",
        "from collections import namedtuple\nclass C:\n    namedtuple = combine\n"
        "    P = namedtuple('P', 'a')",
        "namedtuple = combine\nP = namedtuple('P', 'a')",
        "class C:\n    a = [('x', 1)]\n    d = {'y': dict}\n    d.update(a)",
        "class C:\n    d = {'y': dict}\n    d.update(LIMIT)",
        "T = typing.TypeVar('T', int)",  # a single constraint
        "T = typing.TypeVar('T', bound=MISSING)",
        "T = typing.TypeVar('T', bound=LIMIT)",
        "T = typing.TypeVar('T', bound=typing.Optional[int, str])",
        "if typing.TYPE_CHECKING:\n    X = 1\nelse:\n    X = MISSING",
        "from typing import TypedDict\nclass O(TypedDict, bogus=1):\n    a: int",
        "from typing import TypedDict\nclass O(TypedDict):\n    a: typing.Optional[int, str]",
        "from typing import TypedDict\nclass O(TypedDict):\n    a: int = 1",
        "from typing import TypedDict\n@combine\nclass O(TypedDict):\n    a: int",
    ],
)
def test_bindings_that_may_raise(statement: str) -> None:
    assert _last_may_raise(PRELUDE + statement)


def test_lazy_annotations_are_never_evaluated() -> None:
    source = "from __future__ import annotations\n" + PRELUDE + "def f(x: Later): ..."
    assert not _last_may_raise(source)


def test_a_star_import_may_rebind_any_builtin() -> None:
    assert _last_may_raise("from helpers import *\nX = len")

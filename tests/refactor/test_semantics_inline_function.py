"""Inline of a function or of a parameter's default keeps single, ordered evaluation of
arguments, the meaning of the names the body reads, and precedence (real rope, small
projects; the shapes come from the ``inline-functions`` generator)."""

from __future__ import annotations

import pytest

from lsp_server.refactor.model import RefactoringError, RefactorRequest
from tests.support.semantics import inline, run

SHADOWED = "K = 10\n\n\n{definition}\n\n\ndef work():\n    K = 1\n    print(h(2), K)\n\n\nwork()\n"
NOTE = 'def note(v):\n    print("eval", v)\n    return v\n\n\n'


@pytest.mark.parametrize(
    ("body", "call", "reason"),
    [
        ("def h(a):\n    return a + a\n", "h(note(2))", "evaluated 2 times instead of once"),
        ("def h(a):\n    return 1\n", "h(note(2))", "evaluated 0 times instead of once"),
        ("def h(a, b):\n    return b - a\n", "h(note(1), note(5))", "in another order"),
        ("def h(a):\n    return 0 or a\n", "h(note(2))", "not evaluated exactly once"),
    ],
    ids=["twice", "never", "reordered", "operand-of-or"],
)
def test_inline_function_refuses_when_an_argument_is_evaluated_differently(
    tmp_project,
    body,
    call,
    reason,
):
    source = f"{NOTE}{body}\n\nprint({call})\n"
    with pytest.raises(RefactoringError, match=reason):
        inline(tmp_project, source, "h(a")


def test_inline_function_with_plain_arguments_is_done(tmp_project):
    path, before = inline(tmp_project, "def h(a):\n    return a + a\n\n\nprint(h(3))\n", "h(a")
    assert path.read_text().strip() == "print(3 + 3)"
    assert run(path) == before


def test_inline_function_parenthesises_an_operand(tmp_project):
    source = "def h(a, b=2):\n    return a * b + 1\n\n\nprint(h(3) * 2, -h(4), h(2, 3))\n"
    path, before = inline(tmp_project, source, "h(a")
    assert path.read_text().strip() == "print((3 * 2 + 1) * 2, -(4 * 2 + 1), 2 * 3 + 1)"
    assert run(path) == before


@pytest.mark.parametrize(
    ("definition", "at", "reason"),
    [
        ("def h(a):\n    return a + K", "h(a", r"reads the global `K`.*main\.py:10"),
        ("def h(a, b=K):\n    return a + b", "b=K", r"default reads `K`.*main\.py:10"),
    ],
    ids=["function-body", "parameter-default"],
)
def test_inline_refuses_a_global_the_caller_shadows(tmp_project, definition, at, reason):
    with pytest.raises(RefactoringError, match=reason):
        inline(tmp_project, SHADOWED.format(definition=definition), at)


def test_inline_function_refuses_a_body_that_assigns_a_parameter(tmp_project):
    source = "def h(a):\n    a = a + 1\n    return a\n\n\nt = 5\nprint(h(t), t)\n"
    with pytest.raises(RefactoringError, match=r"assigns the parameter `a` \(line 2\)"):
        inline(tmp_project, source, "h(a")


@pytest.mark.parametrize(
    "body",
    ['    print("body")\n    return a + 1\n', '    print("body", a)\n'],
    ids=["statements-then-return", "one-statement"],
)
def test_inline_function_refuses_hoisting_past_an_earlier_effect(tmp_project, body):
    source = f"{NOTE}def h(a):\n{body}\n\nprint(note(0), h(2))\n"
    with pytest.raises(RefactoringError, match=r"`note\(0\)` is evaluated before the call"):
        inline(tmp_project, source, "h(a")


@pytest.mark.parametrize(
    ("default", "at", "reason"),
    [
        ("[]", "h(a", r"default `\[\]` of `b` is evaluated once"),
        ("[]", "b=", r"default `\[\]` of `b` is evaluated once"),
        ("note(7)", "b=", r"default `note\(7\)` of `b` is evaluated once"),
    ],
    ids=["function-mutable", "parameter-mutable", "parameter-call"],
)
def test_inline_refuses_a_default_evaluated_at_every_call(tmp_project, default, at, reason):
    source = f"{NOTE}def h(a, b={default}):\n    print(b)\n    return a\n\n\nprint(h(1), h(2))\n"
    with pytest.raises(RefactoringError, match=reason):
        inline(tmp_project, source, at)


def test_inline_parameter_with_a_literal_default_is_done(tmp_project):
    source = "def h(a, b=2):\n    return a + b\n\n\nprint(h(1), h(1, 5))\n"
    path, before = inline(tmp_project, source, "b=2")
    assert "h(1, 2), h(1, 5)" in path.read_text()
    assert run(path) == before


def test_inline_method_binds_the_receiver_and_mends_precedence(tmp_project):
    source = f"""{NOTE}class A:
    k = 3

    def h(self, a):
        return a + self.k

    def w(self):
        return self.h(2) * 2


print(A().w())
"""
    path, before = inline(tmp_project, source, "h(self")
    assert "return (2 + self.k) * 2" in path.read_text()
    assert run(path) == before


def test_inline_method_refuses_an_argument_evaluated_twice(tmp_project):
    source = f"""{NOTE}class A:
    def h(self, a):
        return a + a

    def w(self):
        return self.h(note(2))


print(A().w())
"""
    with pytest.raises(RefactoringError, match=r"`note\(2\)` for `a`.*evaluated 2 times"):
        inline(tmp_project, source, "h(self")


def test_inline_function_called_with_double_star_is_refused_as_ropes_limit(tmp_project):
    source = "def h(a, b=1):\n    return a + b\n\n\nd = {'b': 2}\nprint(h(1, **d))\n"
    with pytest.raises(RefactoringError, match=r"rope cannot inline `h`.*not an error in your"):
        inline(tmp_project, source, "h(a")


MODULE_H = f"{NOTE}def h(a):\n    return a + a\n"


def _inline_in_module(tmp_project, main: str):
    root, _ = tmp_project
    (root / "m.py").write_text(MODULE_H)
    (root / "main.py").write_text(main)
    before = run(root / "main.py")
    _, engine = tmp_project
    text = MODULE_H
    result = engine.compute(RefactorRequest("inline", str(root / "m.py"), text.index("h(a")))
    engine.apply(result, str(root))
    return root / "main.py", before


def test_inline_function_refuses_a_call_through_an_import_alias(tmp_project):
    with pytest.raises(RefactoringError, match=r"main\.py:1 imports it as `g`"):
        _inline_in_module(tmp_project, "from m import h as g\nprint(g(2))\n")


def test_inline_function_through_a_module_attribute_is_checked_and_done(tmp_project):
    with pytest.raises(RefactoringError, match=r"`m\.note\(2\)` for `a`.*evaluated 2 times"):
        _inline_in_module(tmp_project, "import m\nprint(m.h(m.note(2)))\n")
    main, before = _inline_in_module(tmp_project, "import m\nprint(m.h(2))\n")
    assert "print(2 + 2)" in main.read_text()
    assert run(main) == before


LATE = "x = 1\nf = h(x)\nx = 5\nprint({use})\n"


@pytest.mark.parametrize(
    ("body", "use", "reason"),
    [
        ("    return lambda: a\n", "f()", "in a lambda's body"),
        ("    g = lambda: a\n    return g\n", "f()", "in a lambda's body"),
        ("    return (a + i for i in range(2))\n", "list(f)", "in a generator expression"),
    ],
    ids=["lambda", "lambda-in-statement", "generator-expression"],
)
def test_inline_function_refuses_a_parameter_read_after_the_call(tmp_project, body, use, reason):
    source = f"def h(a):\n{body}\n\n{LATE.format(use=use)}"
    with pytest.raises(RefactoringError, match=rf"use of `a` at line 2 would read `x`.*{reason}"):
        inline(tmp_project, source, "h(a")


def test_inline_function_refuses_an_argument_evaluated_in_a_nested_function(tmp_project):
    body = "def h(a):\n    def inner():\n        print(a)\n    inner()\n    inner()\n"
    with pytest.raises(RefactoringError, match=r"inside the nested function `inner`"):
        inline(tmp_project, f"{NOTE}{body}\n\nh(note(2))\n", "h(a")


@pytest.mark.parametrize(
    ("body", "call"),
    [
        ("    return [a + i for i in range(3)]\n", "i = 10\nprint(h(i))\n"),
        ("    t = 1\n    return a + t\n", "t = 10\nprint(h(t))\n"),
    ],
    ids=["comprehension-target", "local"],
)
def test_inline_function_refuses_an_argument_the_body_captures(tmp_project, body, call):
    with pytest.raises(RefactoringError, match=r"reads `[it]`, which the body of `h` binds"):
        inline(tmp_project, f"def h(a):\n{body}\n\n{call}", "h(a")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("    return [a + i for i in range(3)]\n", "print([x + i for i in range(3)])"),
        ("    return (i for i in range(a))\n", "print(list((i for i in range(x))))"),
        ("    return (lambda v=a: v)()\n", "print((lambda v=x: v)())"),
        ("    return (lambda: a + 1)()\n", "print((lambda: x + 1)())"),
    ],
    ids=["comprehension", "generator-first-iterable", "lambda-default", "lambda-called-at-once"],
)
def test_inline_function_with_a_parameter_read_at_the_call_is_done(tmp_project, body, expected):
    """Still done: the parameter is read while the call runs (guards the refusals above)."""
    call = "print(list(h(x)))" if "(i for" in body else "print(h(x))"
    path, before = inline(tmp_project, f"def h(a):\n{body}\n\nx = 2\n{call}\n", "h(a")
    assert expected in path.read_text()
    assert run(path) == before


def test_inline_parameter_refuses_a_default_name_bound_again(tmp_project):
    # The default reads `K` when `h` is defined; pasted into the call it reads the later `K`.
    source = "K = 10\n\n\ndef h(a, b=K):\n    return a + b\n\n\nK = 20\nprint(h(1))\n"
    with pytest.raises(RefactoringError, match=r"default `K` of `b`.*bound again at main.py:8"):
        inline(tmp_project, source, "b=K")


@pytest.mark.parametrize(
    "definition",
    [
        "def h(n):\n    for i in range(n):\n        yield i * 2\n",
        "def h(n):\n    yield from range(n)\n",
        "def h(n):\n    x = yield n\n    return x\n",
    ],
    ids=["yield", "yield-from", "yield-expression"],
)
def test_inline_refuses_a_generator_saying_so(tmp_project, definition):
    """Pasting a generator's body turns its caller into a generator (rope did it)."""
    source = f"{definition}\n\ndef use():\n    return list(h(3))\n\n\nprint(use())\n"
    with pytest.raises(RefactoringError, match=r"`h` is a generator"):
        inline(tmp_project, source, "h(n")

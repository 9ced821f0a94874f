"""``reads._name_uses`` reads the bytecode itself: it must agree with ``dis`` on every
code object of real modules (the stdlib's, with extended arguments, super(), methods,
comprehensions), on the Python running the tests."""

from __future__ import annotations

import argparse
import dis
import email.message
import inspect
import json.decoder
import sys
import typing
from collections.abc import Iterator
from types import CodeType

from lsp_server.rts import reads
from lsp_server.rts.reads import _GLOBAL_OPS, _global_only, _name_uses


def _with_dis(code: CodeType) -> set[str]:
    as_global: set[str] = set()
    elsewhere: set[str] = set()
    for instruction in dis.get_instructions(code):
        if instruction.opcode in dis.hasname and instruction.opname != "IMPORT_NAME":
            found = as_global if instruction.opcode in _GLOBAL_OPS else elsewhere
            found.add(instruction.argval)
    return as_global - elsewhere


def _codes(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _codes(const)


def _module_code(module: object) -> CodeType:
    return compile(inspect.getsource(module), inspect.getfile(module), "exec")  # type: ignore[arg-type]


def _stored_and_loaded_with_dis(code: CodeType) -> tuple[set[str], set[str]]:
    stored: set[str] = set()
    loaded: set[str] = set()
    for instruction in dis.get_instructions(code):
        if instruction.opcode in dis.hasname:
            if instruction.opname.startswith("STORE_"):
                stored.add(instruction.argval)
            elif not instruction.opname.startswith("DELETE_"):
                loaded.add(instruction.argval)
    return stored, loaded


def test_global_only_agrees_with_dis_on_real_code() -> None:
    checked = 0
    for module in (typing, inspect, email.message, json.decoder, argparse, reads):
        for code in _codes(_module_code(module)):
            assert _global_only(code) == _with_dis(code), (module, code.co_name)
            uses = _name_uses(code)
            stored, loaded = _stored_and_loaded_with_dis(code)
            assert (uses.stored, uses.loaded) == (stored, loaded), (module, code.co_name)
            checked += 1
    assert checked > 500


def test_extended_arguments() -> None:
    # More than 256 names: indexes above 255 need EXTENDED_ARG.
    body = "\n".join(f"    v{i} = g{i} + o.a{i}" for i in range(300))
    source = f"def f(o):\n{body}\n    super().m\n    return g299\n"
    code = next(c for c in compile(source, "<x>", "exec").co_consts if isinstance(c, CodeType))
    found = _global_only(code)
    assert found == _with_dis(code)
    assert {"g0", "g299"} <= found and "a299" not in found


def test_a_class_body_reads_not_its_methods_qualnames() -> None:
    """Before 3.11 a class body (or function) holds each nested function's qualified name
    as a string constant (``'TestA.test_other'``), which ``MAKE_FUNCTION`` takes: that is
    no lookup of ``test_other`` by string. Counted as one, every test of a class read
    every binding of its method names elsewhere (a default of a same-named method of
    another class): ``tests/rts/test_stored_names.py`` failed on 3.10."""
    module = compile(
        "class TestA:\n"
        "    def test_other(self):\n"
        "        def inner():\n"
        "            return 1\n"
        "        return inner\n"
        "    lookup = getattr(object, 'real_name', None)\n",
        "<test>",
        "exec",
    )
    body = next(c for c in module.co_consts if isinstance(c, CodeType))
    method = next(c for c in body.co_consts if isinstance(c, CodeType))
    assert "real_name" in reads.code_reads(body)[0]
    assert not {"test_other", "lookup"} & reads.code_reads(body)[0]
    assert "inner" not in reads.code_reads(method)[0]
    assert "f" not in reads.code_reads(compile("def f():\n    pass\n", "<test>", "exec"))[0]
    # The same string also looked up by name is a read.
    looked_up = compile("def f():\n    pass\n\ng = globals()['f']\n", "<test>", "exec")
    assert "f" in reads.code_reads(looked_up)[0]


def _rewritten_test_module() -> CodeType:
    """A test module as pytest runs it: assertion rewriting makes a test function thousands
    of instructions long, with the explanation strings among its constants."""
    import ast

    from _pytest.assertion.rewrite import rewrite_asserts

    body = "".join(
        f"    assert f.__doc__ == {i!r}, f.__name__\n    assert g(x={i}).attr.inner[{i}] is None\n"
        for i in range(300)
    )
    source = f"import inspect\n\ndef test_many(f, g):\n{body}    return inspect.signature(f)\n"
    tree = ast.parse(source)
    rewrite_asserts(tree, source.encode(), "test_many.py")
    return compile(tree, "test_many.py", "exec")


def test_instruction_arguments_agree_with_dis_on_real_and_rewritten_code() -> None:
    from lsp_server.rts.reads import instruction_arguments

    checked = 0
    modules = [typing, inspect, email.message, json.decoder, argparse, reads]
    codes = [c for m in modules for c in _codes(_module_code(m))]
    codes += list(_codes(_rewritten_test_module()))
    for code in codes:
        # Straight from the bytecode on 3.12: the instructions taking a constant, a name or
        # a variable; every instruction elsewhere.
        expected = [
            (ins.offset, ins.opcode, ins.argval)
            for ins in dis.get_instructions(code)
            if sys.version_info[:2] != (3, 12)
            or ins.opcode in (*dis.hasconst, *dis.hasname, *dis.haslocal, *dis.hasfree)
        ]
        assert list(instruction_arguments(code)) == expected, code.co_name
        checked += 1
    assert checked > 500

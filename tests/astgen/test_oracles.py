"""Oracles on hand-made before/after pairs, and the checker with a real engine."""

from __future__ import annotations

from collections import Counter

from lsp_server.astgen import oracles
from lsp_server.astgen.check import Checker
from lsp_server.astgen.engines import Location, make_engine
from lsp_server.astgen.program import MAIN, cursor_case, rename_case
from lsp_server.astgen.program_runner import Runner


def test_compile_error_names_the_file() -> None:
    assert oracles.compile_error({"a.py": "x = 1\n"}) is None
    found = oracles.compile_error({"a.py": "x = 1\n", "b.py": "def f(:\n"})
    assert found is not None and found.oracle == oracles.DOES_NOT_COMPILE
    assert found.detail.startswith("b.py:1:")


def test_new_undefined_names_ignores_those_already_there() -> None:
    before = {MAIN: "print(missing)\n"}
    after = {MAIN: "print(missing)\nprint(other)\n"}
    names = oracles.undefined_per_file(before)
    found = oracles.new_undefined_names(names, before, after)
    assert found is not None and found.detail == "undefined: other"
    assert oracles.new_undefined_names(names, before, before) is None
    # A name that moves to another file is not new.
    moved = oracles.new_undefined_names(names, before, {MAIN: "\n", "b.py": "print(missing)\n"})
    assert moved is None
    assert oracles.undefined_names(after) == Counter({"missing": 1, "other": 1})


def test_structural_ignores_layout_and_points_at_the_missed_occurrence() -> None:
    expected = {MAIN: "class C:\n    g = 1\n\nprint(C.g)\n"}
    assert (
        oracles.structural(expected, {MAIN: "class C:\n    g = 1  # c\n\n\nprint(C.g)\n"}) is None
    )
    found = oracles.structural(expected, {MAIN: "class C:\n    g = 1\n\nprint(C.f)\n"})
    assert found is not None and found.detail == "main.py:4: `f` where `g` expected"


def test_corresponding_offset_follows_the_token() -> None:
    before = "a = 1\nprint(a, a)\n"
    after = "renamed = 1\nprint(renamed, renamed)\n"
    assert oracles.corresponding_offset(before, after, before.rindex("a")) == after.rindex(
        "renamed"
    )
    assert oracles.corresponding_offset(before, "a = 1\n", 0) is None  # streams differ


def test_same_program_compares_normalized_asts() -> None:
    original = {MAIN: "x = 1\nprint(x)\n"}
    assert oracles.same_program(original, {MAIN: "x = 1\n\nprint( x )\n"}) is None
    found = oracles.same_program(original, {MAIN: "y = 1\nprint(y)\n"})
    assert found is not None and found.oracle == oracles.INVERSE
    assert oracles.same_program(original, {MAIN: "x = 1\n", "b.py": ""}) is not None


def test_checker_passes_a_correct_rename_and_runs_the_inverse() -> None:
    source = "def work(«@a»):\n    return «a» * 2\n\n\nprint(work(«a»=3))\n"
    case = rename_case({MAIN: source}, "b", "test")
    checker = Checker([make_engine("rope")], Runner())
    try:
        (result,) = checker.check(0, case, ())
        assert result.status == "ok" and result.findings == []
        assert result.run is not None and result.run.stdout == "6\n"
        # A wrong expectation makes the structural oracle fire: it is not vacuous.
        wrong = rename_case({MAIN: source.replace("«a» * 2", "a * 2")}, "b", "test")
        (bad,) = checker.check(1, wrong, ())
        assert [f.oracle for f in bad.findings] == [oracles.STRUCTURAL]
    finally:
        checker.close()


def test_refusal_oracle() -> None:
    named = "def work(n):\n    «@y» = n + 1\n    z = 2\n    print(«y», z)\n\n\nwork(2)\n"
    clash = rename_case({MAIN: named}, "z", "test", expect_refusal=True)
    keyword = rename_case({MAIN: named}, "class", "test", expect_refusal=True)
    checker = Checker([make_engine("reks"), make_engine("rope")], Runner())
    try:
        results = {r.engine: r for r in checker.check(0, keyword, ())}
        # reks checks the new name and refuses: the right answer for this program.
        assert results["reks"].status == "refused" and results["reks"].findings == []
        results = {r.engine: r for r in checker.check(1, clash, ())}
        assert results["rope"].status == "ok"
        (finding,) = results["rope"].findings
        assert finding.oracle == oracles.REFUSAL and "output-changed" in finding.detail
    finally:
        checker.close()


def test_engine_outcomes_ok_refused_unsupported() -> None:
    files = {MAIN: "def ‸h(a):\n    return a + 1\n\n\nprint(h(2))\n", "other.py": ""}
    case = cursor_case(files, "move", (("destination", "other.py"),))
    jedi = make_engine("jedi")
    rope = make_engine("rope")
    try:
        location = Location(MAIN, case.target.offset)
        assert jedi.perform("move", case.program.file_map, location, {}).status == "unsupported"
        moved = rope.perform("move", case.program.file_map, location, case.target.arg_map)
        assert moved.status == "ok" and moved.files is not None
        assert "def h(a)" in moved.files["other.py"]
        refused = rope.perform("rename", {MAIN: "x = 1\n"}, Location(MAIN, 2), {"new_name": "y"})
        assert refused.status == "refused"
    finally:
        jedi.close()
        rope.close()

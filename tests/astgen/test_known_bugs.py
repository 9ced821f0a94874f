"""Known engine bugs (rope 1.15, jedi 0.20) pinned as oracle self-checks, and rediscovered
by the generators without being pointed at them.

Each pin runs the real engine on a hand-written program and asserts the oracle that must
fire. If an engine release fixes one of these, the pin fails: re-run ``reks engine-test
--write-known-failures`` and update the pin.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lsp_server.astgen import oracles
from lsp_server.astgen.check import Checker, CheckResult
from lsp_server.astgen.driver import Config, generate, run
from lsp_server.astgen.engines import make_engine
from lsp_server.astgen.program import MAIN, rename_case, selection_case
from lsp_server.astgen.program_runner import Runner
from lsp_server.astgen.report import distinct_failures, group_failures

SUPER_CALL = """\
class C:
    def «@m»(self, p):
        return p + 1


class D(C):
    def «m»(self, p):
        return super().«m»(p) * 2


print(D().«m»(3))
"""

SHADOWED_FIELD = """\
class C:
    «@f» = 1

    def get(self):
        return self.«f»


class D(C):
    «f» = 5


print(C().get(), D().get())
"""

NO_LIVE_OUT = """\
def work(n):
    acc = 0
    ⟦if n > 3:
        print("big")
⟧    return acc


print(work(5))
"""

AUGMENTED = """\
def work(n):
    i = 0
    for x in range(n):
        ⟦i += 1
⟧    print(i)


work(3)
"""


@pytest.fixture(scope="module")
def checkers() -> Iterator[dict[str, Checker]]:
    made = {name: Checker([make_engine(name)], Runner()) for name in ("rope", "reks", "jedi")}
    yield made
    for checker in made.values():
        checker.close()


def _oracles(result: CheckResult) -> dict[str, str]:
    return {f.oracle: f.detail for f in result.findings}


def test_rope_rename_misses_super_call(checkers: dict[str, Checker]) -> None:
    case = rename_case({MAIN: SUPER_CALL}, "n", "pin")
    (result,) = checkers["rope"].check(0, case, ())
    found = _oracles(result)
    assert "AttributeError" in found[oracles.OUTPUT_CHANGED]
    assert "super" in found[oracles.OUTPUT_CHANGED]
    assert oracles.STRUCTURAL in found
    assert result.after is not None and "super().m(p)" in result.after[MAIN]
    # reks's rename wrapper renames super() calls itself: the same oracles pass.
    (wrapped,) = checkers["reks"].check(0, case, ())
    assert wrapped.status == "ok" and wrapped.findings == []


def test_rename_class_attribute_ignores_subclass_redefinition(
    checkers: dict[str, Checker],
) -> None:
    case = rename_case({MAIN: SHADOWED_FIELD}, "g", "pin")
    (result,) = checkers["rope"].check(0, case, ())
    found = _oracles(result)
    assert found[oracles.OUTPUT_CHANGED].startswith("before: '1 5⏎' ok | after: '1 1⏎'")
    assert oracles.STRUCTURAL in found
    # reks renames the redefinition in the subclass too (semantics.rename_checks).
    (wrapped,) = checkers["reks"].check(0, case, ())
    assert wrapped.status == "ok" and wrapped.findings == []


def test_jedi_extract_function_without_live_out_does_not_compile(
    checkers: dict[str, Checker],
) -> None:
    case = selection_case({MAIN: NO_LIVE_OUT}, "extract-method", (("name", "ext"),), "pin")
    (result,) = checkers["jedi"].check(0, case, ())
    assert oracles.DOES_NOT_COMPILE in _oracles(result)
    assert result.after is not None
    assert "    return \n" in result.after[MAIN] and " = ext(n)" in result.after[MAIN]
    (wrapped,) = checkers["reks"].check(0, case, ())
    assert wrapped.findings == []


def test_jedi_treats_augmented_assignment_as_write_only(checkers: dict[str, Checker]) -> None:
    case = selection_case({MAIN: AUGMENTED}, "extract-method", (("name", "ext"),), "pin")
    (result,) = checkers["jedi"].check(0, case, ())
    found = _oracles(result)
    assert "UnboundLocalError" in found[oracles.OUTPUT_CHANGED]
    assert "undefined: i" in found[oracles.UNDEFINED_NAME]
    assert result.after is not None and "def ext():\n    i += 1\n" in result.after[MAIN]


def _groups(config: Config) -> list[tuple[str, str, str]]:
    outcome = run(config)
    groups = group_failures(outcome.results, generate(config))
    return [(g.engine, g.oracle, g.detail) for g in groups]


def test_generators_rediscover_the_rename_bugs() -> None:
    found = _groups(Config(bound=1, generators=("classes",), engines=("rope", "reks")))
    rope = [(oracle, detail) for engine, oracle, detail in found if engine == "rope"]
    assert any(
        o == oracles.OUTPUT_CHANGED and "'super' object has no attribute" in d for o, d in rope
    )
    # Class attribute overridden in the subclass: output changes through rope, not reks.
    assert any(o == oracles.OUTPUT_CHANGED and "1 1⏎5 5 5⏎" in d for o, d in rope)
    assert not [(o, d) for e, o, d in found if e == "reks"]


def test_generators_rediscover_the_jedi_extract_bugs() -> None:
    config = Config(bound=1, generators=("statements",), engines=("jedi",))
    outcome = run(config)
    broken = [
        r.after[MAIN]
        for r in outcome.results
        if r.after is not None and any(f.oracle == oracles.DOES_NOT_COMPILE for f in r.findings)
    ]
    assert any("    return \n" in text and " = ext(" in text for text in broken)
    unbound = [
        f.detail
        for r in outcome.results
        for f in r.findings
        if f.oracle == oracles.OUTPUT_CHANGED and ("from", "acc+=") in r.labels
    ]
    assert any("UnboundLocalError" in detail and "'acc'" in detail for detail in unbound)


GETATTR_METHOD = """\
class C:
    def «@m»(self):
        return 12


c = C()
print(c.«m»(), getattr(c, "«m»")())
"""


def test_rename_with_a_getattr_string_needs_confirmation(checkers: dict[str, Checker]) -> None:
    # rope leaves the string: the program breaks. reks renames it as an uncertain change,
    # which the harness counts apart ("confirm") and checks as if the user confirmed it.
    case = rename_case({MAIN: GETATTR_METHOD}, "renamed", "pin")
    (result,) = checkers["rope"].check(0, case, ())
    assert "AttributeError" in _oracles(result)[oracles.OUTPUT_CHANGED]
    (wrapped,) = checkers["reks"].check(0, case, ())
    assert wrapped.status == "confirm" and wrapped.findings == []


def test_distinct_failures_name_rope_rename_bugs_by_the_code_left_unrenamed() -> None:
    """ASTGen counts unique bugs, not failing programs: rope's rename of a field leaves the
    use in a lambda, in an untyped parameter's body and in ``getattr`` alone, each failing
    two oracles (output and structure) under several signatures; three faults in all."""
    config = Config(bound=1, generators=("fields",), engines=("rope",), inverse=False)
    outcome = run(config)
    cases = generate(config)
    groups = group_failures(outcome.results, cases)
    failures = set(distinct_failures(outcome.results, cases).values())
    assert len(groups) == 6
    assert failures == {
        ("rope", "rename", "fields", ("get = lambda o: o.f",)),
        ("rope", "rename", "fields", ("return o.f",)),
        ("rope", "rename", "fields", ('return getattr(self, "f")',)),
    }

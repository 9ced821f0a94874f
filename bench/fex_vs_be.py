"""Field-exhaustive (FE) vs bounded-exhaustive (BE) vs random suites on the paper's subjects
(sorted list, binary search tree, red-black tree, binomial heap; ``lsp_server/examples/fex``).

Per structure and scope: suite size (inputs), generation time, test time, mutation score and
branch coverage. BE is Route A without selection (every valid instance, Korat-style search);
FE is ``fex.suite.generate`` (incremental SAT where the class declares ``__fex_spec__``,
each model widened to show an open value of as many fields as it can, then every pair of
a shape field under each size up to 3 and how each field and each other two-reference path
of an object end (None or an object), each round within #F x n inputs, ``fex.sat``;
Korat-style search plus greedy selection otherwise);
random replays random sequences of the
methods under test from an empty structure, as many as FE has inputs and ten times that.

A test calls one method under test with one argument value on one input, then checks
``rep_ok`` and ``post_<method>``. Mutants: extreme transformations (each method's body
replaced by ``pass``, as ``lsp_server.extreme`` does) plus classic operator mutations
(comparison, arithmetic, boolean constant, and/or), one per site; a mutant is killed when a
test fails, raises or runs over max(2 s, 10x the suite's time on the original code). Each
series stops at the first scope whose generation exceeds the budget. The last lines give
FE's growth: inputs per scope, split into the criterion's and the further rounds'. Goals
(issue 19): FE size <= #F x n^2 and linear; FE reaches >= 2x the BE scope within the
budget; FE mutation score and branch coverage within 2 points of BE.

fex9 (load 13-21, budget 60 s): scope reached BE/FE: sorted list 12/26, bst 7/16, red-black
tree 4/10, binomial heap 5/12, bintrees 4/10 (2.2-2.5x); FE's mutation score and branch
coverage equal BE's at every scope 1-4 but bintrees at 3 (72.3 against 73.8, branches
equal); FE inputs at the largest scope: 33 (sorted list 24), 65 (bst 16), 50 (red-black 10),
36 (heap 12), 54 (bintrees 10), each the criterion's plus 8-24 for the further rounds.

    python bench/fex_vs_be.py [--budget 60] [--quality-scope 4] [--structure bst]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import itertools
import json
import random
import signal
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import lsp_server
from lsp_server.fex import heap, korat, suite
from lsp_server.fex.model import build_model, classes_of, invariant_of

EXAMPLES = Path(lsp_server.__file__).parent / "examples" / "fex"
SUBJECTS = {
    "sorted_list": ("SortedList", ("add", "remove")),
    "bst": ("BinarySearchTree", ("add", "remove")),
    "red_black_tree": ("RedBlackTree", ("add", "remove")),
    "binomial_heap": ("BinomialHeap", ("insert", "extract_min")),
}
NOT_MUTATED = (
    "rep_ok",
    "post_",
    "fex_scope",
    "_black_height",
    "black_height",
    "_ordered",
    "_tree_ok",
)
SOURCES = {name: EXAMPLES / f"{name}.py" for name in SUBJECTS}

# A real PyPI class: bintrees' pure-Python red-black tree (top-down, no parent pointers),
# with an invariant, a finitization and a relational spec written here.
BINTREES_ADAPTER = """

class CheckedRBTree(RBTree):
    __fex_spec__ = (
        ("tree", ("_root",), ("left", "right")),
        ("ordered", "key", "left", "right"),
        ("red_black", "red", "left", "right"),
        ("size", "_count"),
    )

    def rep_ok(self):
        seen = set()

        def black_height(node, low, high):
            if node is None:
                return 0
            if id(node) in seen:
                return -1
            seen.add(id(node))
            if (low is not None and node.key <= low) or (high is not None and node.key >= high):
                return -1
            for child in (node.left, node.right):
                if node.red and child is not None and child.red:
                    return -1
            left = black_height(node.left, low, node.key)
            right = black_height(node.right, node.key, high)
            if left < 0 or left != right:
                return -1
            return left + (0 if node.red else 1)

        if self._root is not None and self._root.red:
            return False
        return black_height(self._root, None, None) >= 0 and self._count == len(seen)

    def post_insert(self, before, result, key, value):
        return key in self and len(self) == len(before) + (key not in before)

    def post_discard(self, before, result, key):
        return key not in self and len(self) == len(before) - (key in before)

    @staticmethod
    def fex_scope(n):
        return {
            "Node": n,
            "CheckedRBTree._root": [None, Node],
            "CheckedRBTree._count": range(n + 1),
            "Node.key": range(n),
            "Node.value": [None],
            "Node.red": [False, True],
            "Node.left": [None, Node],
            "Node.right": [None, Node],
        }
"""


def add_bintrees(scratch: Path) -> None:
    """The bintrees subject, when bintrees is installed (pip install bintrees)."""
    try:
        import bintrees.rbtree
    except ImportError:
        print("bintrees is not installed: its red-black tree is left out", flush=True)
        return
    text = Path(bintrees.rbtree.__file__).read_text()
    text = text.replace("from .abctree import", "from bintrees.abctree import")
    path = scratch / "bintrees_rbtree.py"
    path.write_text(text + BINTREES_ADAPTER)
    SUBJECTS["bintrees_rbtree"] = ("CheckedRBTree", ("insert", "discard"))
    SOURCES["bintrees_rbtree"] = path


def load(name: str, source: str | None = None, tag: str = "") -> types.ModuleType:
    path = SOURCES[name]
    module = types.ModuleType(f"fex_bench_{name}{tag}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    code = compile(source if source is not None else path.read_text(), str(path), "exec")
    exec(code, module.__dict__)
    return module


# -- mutants -------------------------------------------------------------------------------
_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.And: ast.Or, ast.Or: ast.And,
}  # fmt: skip


def _mutable_functions(tree: ast.Module) -> Iterator[ast.FunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and not node.name.startswith(NOT_MUTATED):
            yield node


def mutants(source: str) -> list[tuple[str, str]]:
    """(description, mutated source) for every site."""
    out = []
    count = len(list(_sites(ast.parse(source))))
    for site in range(count):
        tree = ast.parse(source)
        description = list(_sites(tree))[site]()
        out.append((description, ast.unparse(tree)))
    return out


def _sites(tree: ast.Module) -> Iterator[Callable[[], str]]:
    """Each site as a function that applies its mutation to ``tree`` and describes it."""
    for function in _mutable_functions(tree):

        def empty(f: ast.FunctionDef = function) -> str:
            f.body = [ast.Pass()]
            return f"{f.name}: body -> pass"

        yield empty
        for node in ast.walk(function):
            ops = node.ops if isinstance(node, ast.Compare) else [getattr(node, "op", None)]
            for position, op in enumerate(ops):
                if type(op) in _SWAPS:

                    def swap(n: Any = node, p: int = position, f: Any = function) -> str:
                        if isinstance(n, ast.Compare):
                            old = n.ops[p]
                            n.ops[p] = _SWAPS[type(old)]()
                        else:
                            old = n.op
                            n.op = _SWAPS[type(old)]()
                        return f"{f.name}:{n.lineno}: {type(old).__name__} swapped"

                    yield swap
            if isinstance(node, ast.Constant) and isinstance(node.value, bool):

                def flip(n: Any = node, f: Any = function) -> str:
                    n.value = not n.value
                    return f"{f.name}:{n.lineno}: {not n.value} -> {n.value}"

                yield flip


# -- running a suite -------------------------------------------------------------------------
class _Timeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _calls(model: Any, methods: tuple[str, ...], cls: type) -> list[tuple[str, list[Any]]]:
    """Every method under test with every combination of its parameters' values."""
    made = suite.methods_of(cls, model, list(methods))
    return [
        (method.name, list(args))
        for method in made
        for args in itertools.product(*(values for _, values in method.params))
    ]


def structural_tests(module: types.ModuleType, name: str, model: Any, inputs: list[Any]) -> bool:
    """Run every test of a FE/BE suite against ``module``; True when all pass."""
    cls_name, methods = SUBJECTS[name]
    cls = getattr(module, cls_name)
    classes = {n: getattr(module, n) for n in model.counts}
    for instance in inputs:
        for method, args in _calls(model, methods, cls):
            target = heap.build(classes, model, instance)
            before = heap.build(classes, model, instance)
            result = getattr(target, method)(*args)
            if not target.rep_ok() or not getattr(target, f"post_{method}")(before, result, *args):
                return False
    return True


def random_inputs(name: str, scope: int, count: int, seed: int) -> list[list[tuple[str, int]]]:
    rng = random.Random(seed)
    methods = SUBJECTS[name][1]
    return [
        [(rng.choice(methods), rng.randrange(scope)) for _ in range(rng.randint(0, 2 * scope))]
        for _ in range(count)
    ]


def sequence_tests(module: types.ModuleType, name: str, sequences: list[Any]) -> bool:
    import copy

    cls = getattr(module, SUBJECTS[name][0])
    for sequence in sequences:
        target = cls()
        for method, key in sequence:
            arity = len(inspect.signature(getattr(cls, method)).parameters) - 1
            args = [key, None][:arity]
            before = copy.deepcopy(target)
            result = getattr(target, method)(*args)
            if not target.rep_ok() or not getattr(target, f"post_{method}")(before, result, *args):
                return False
    return True


def quality(name: str, run: Callable[[types.ModuleType], bool]) -> tuple[float, float, float]:
    """(mutation score %, branch coverage %, test seconds on the original)."""
    import coverage

    source = SOURCES[name].read_text()
    cov = coverage.Coverage(branch=True, include=[str(SOURCES[name])], data_file=None)
    original = load(name, source, "_orig")
    start = time.perf_counter()
    cov.start()
    passed = run(original)
    cov.stop()
    test_seconds = time.perf_counter() - start
    assert passed, f"{name}: the suite fails on the original code"
    with tempfile.TemporaryDirectory() as scratch:
        try:
            cov.json_report(outfile=f"{scratch}/cov.json")
            totals = json.loads(Path(f"{scratch}/cov.json").read_text())["totals"]
        except coverage.exceptions.NoDataError:  # no test ran a line of the module
            totals = {"covered_branches": 0, "num_branches": 1}
    branches = 100.0 * totals["covered_branches"] / max(totals["num_branches"], 1)
    killed = 0
    all_mutants = mutants(source)
    # A mutant that loops is killed by the time limit; a large suite must not be killed by it
    # too (a bounded-exhaustive suite of 900 inputs takes seconds on the original code).
    limit = max(2.0, 10 * test_seconds)
    for number, (_, mutated) in enumerate(all_mutants):
        try:
            with time_limit(limit):
                survived = run(load(name, mutated, f"_m{number}"))
        except Exception:
            survived = False
        killed += not survived
    return 100.0 * killed / len(all_mutants), branches, test_seconds


# -- the table -------------------------------------------------------------------------------
def bounded_exhaustive(name: str, scope: int, budget: float) -> tuple[Any, list[Any], float]:
    module = load(name)
    cls = getattr(module, SUBJECTS[name][0])
    model = build_model(cls, scope)
    found = korat.search(
        cls, model, classes_of(cls), invariant_of(cls), keep_all=True, seconds=budget,
        budget=10**9,
    )  # fmt: skip
    assert found.instances is not None
    return model, found.instances, found.seconds


def field_exhaustive(name: str, scope: int, budget: float) -> suite.Suite:
    module = load(name)
    cls = getattr(module, SUBJECTS[name][0])
    return suite.generate(cls, scope, budget=10**9, seconds=budget)


def _row(name: str, scope: int, kind: str, size: int, gen: float, qual: Any) -> None:
    score, branches, test_seconds = qual if qual else (None, None, None)
    cells = [f"{name:15}", f"{scope:5}", f"{kind:9}", f"{size:8}", f"{gen:9.3f}"]
    if qual:
        cells += [f"{test_seconds:8.3f}", f"{score:6.1f}", f"{branches:6.1f}"]
    print(" ".join(cells), flush=True)


def bench(
    name: str, budget: float, quality_scope: int, max_scope: int, growth: list[str]
) -> tuple[int, int]:
    """Print the rows of one structure; returns the largest scope BE and FE reached and
    appends each FE suite's size to ``growth`` (``_growth_cell``)."""
    be_reach = fe_reach = 0
    for scope in range(1, max_scope + 1):
        if be_reach == scope - 1:
            try:
                model, instances, gen = bounded_exhaustive(name, scope, budget)
                be_reach = scope
                qual = None
                if scope <= quality_scope:
                    qual = quality(
                        name, lambda m, i=instances, d=model: structural_tests(m, name, d, i)
                    )
                _row(name, scope, "BE", len(instances), gen, qual)
            except korat.ScopeTooLarge:
                print(f"{name:15} {scope:5} BE        over the {budget:g} s budget", flush=True)
        try:
            made = field_exhaustive(name, scope, budget)
            model, instances, gen, route = made.model, made.instances, made.seconds, made.route
        except korat.ScopeTooLarge:
            gen = float("inf")
        if gen > budget:
            print(f"{name:15} {scope:5} FE        over the {budget:g} s budget", flush=True)
            break
        fe_reach = scope
        bound = len(model.fields) * scope**2
        assert len(instances) <= bound, (name, scope, len(instances), bound)
        growth.append(_growth_cell(made))
        qual = None
        if scope <= quality_scope:
            qual = quality(name, lambda m, i=instances, d=model: structural_tests(m, name, d, i))
        _row(name, scope, f"FE-{route}", len(instances), gen, qual)
        if scope <= quality_scope:
            for factor in (1, 10):
                sequences = random_inputs(name, scope, factor * len(instances), seed=scope)
                qual = quality(name, lambda m, s=sequences: sequence_tests(m, name, s))
                _row(name, scope, f"random{factor}x", len(sequences), 0.0, qual)
        if be_reach < scope and scope >= 2 * be_reach + 2:
            break
    return be_reach, fe_reach


def _growth_cell(made: suite.Suite) -> str:
    """``n:inputs/n`` and, for the SAT route, ``(criterion's inputs+the further rounds')``
    against their bound 2 x #F x n (``fex.sat``)."""
    n = made.model.scope
    cell = f"{n}:{len(made.instances)} {len(made.instances) / n:.1f}/n"
    criterion = made.stats.get("criterion_inputs")
    if criterion is not None:
        extra = len(made.instances) - criterion
        cell += f" ({criterion}+{extra}<={2 * len(made.model.fields) * n})"
    return cell


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per generation")
    parser.add_argument("--quality-scope", type=int, default=4, help="mutation/coverage up to")
    parser.add_argument("--max-scope", type=int, default=30)
    parser.add_argument("--structure", action="append")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="fex-bench-"))
    add_bintrees(scratch)
    print("structure       scope kind          size  gen (s) test (s) mut %  branch %")
    reach = {}
    growth: dict[str, list[str]] = {}
    for name in args.structure or list(SUBJECTS):
        growth[name] = []
        reach[name] = bench(name, args.budget, args.quality_scope, args.max_scope, growth[name])
    print("FE growth (scope:inputs inputs/scope (criterion+further rounds<=2 x #F x n)):")
    for name, cells in growth.items():
        print(f"{name}: " + ", ".join(cells))
    for name, (be, fe) in reach.items():
        ratio = fe / be if be else float("inf")
        print(f"{name}: scope reached in {args.budget:g} s: BE {be}, FE {fe} ({ratio:.1f}x)")


if __name__ == "__main__":
    main()

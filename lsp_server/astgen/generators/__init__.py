"""Program generators, by name. Each builds the cases of one family of programs at a size
``bound``; ``cases`` concatenates the chosen ones, filtered by refactoring kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lsp_server.astgen.gen import Gen, Labelled
from lsp_server.astgen.generators import (
    classes,
    fields,
    inline,
    inline_functions,
    methods,
    modules,
    refusals,
    statements,
)
from lsp_server.astgen.program import Case


@dataclass(frozen=True)
class GeneratorSpec:
    name: str
    make: Callable[[int], Gen[Case]]
    kinds: tuple[str, ...]
    """The refactoring kinds its cases ask for."""
    summary: str


GENERATORS: dict[str, GeneratorSpec] = {
    spec.name: spec
    for spec in [
        GeneratorSpec("fields", fields.generate, ("rename",), "field/attribute references"),
        GeneratorSpec("classes", classes.generate, ("rename",), "two classes in every relation"),
        GeneratorSpec("methods", methods.generate, ("rename",), "method references"),
        GeneratorSpec(
            "statements",
            statements.generate_extract_method,
            ("extract-method",),
            "statement sequences, every contiguous selection",
        ),
        GeneratorSpec(
            "expressions",
            statements.generate_extract_variable,
            ("extract-variable",),
            "every compound expression of the statement sequences",
        ),
        GeneratorSpec("inline", inline.generate, ("inline",), "variables and functions to inline"),
        GeneratorSpec(
            "inline-functions",
            inline_functions.generate,
            ("inline",),
            "functions and parameter defaults to inline, in shapes that change behaviour",
        ),
        GeneratorSpec(
            "modules",
            modules.generate,
            ("rename-module", "move", "rename"),
            "modules and imports",
        ),
        GeneratorSpec(
            "refusals",
            refusals.generate,
            ("extract-method", "extract-variable", "inline", "rename", "move"),
            "precondition violations (refusal oracle)",
        ),
    ]
}

REFACTORINGS = ("rename", "rename-module", "extract-method", "extract-variable", "inline", "move")


def cases(
    bound: int, generators: list[str] | None = None, refactorings: list[str] | None = None
) -> list[tuple[str, Labelled[Case]]]:
    """Every case of the chosen generators (all by default) asking for one of the chosen
    refactorings (all by default), in a fixed order: (generator name, labelled case)."""
    names = generators or list(GENERATORS)
    unknown = [n for n in names if n not in GENERATORS]
    if unknown:
        raise ValueError(f"unknown generator {unknown[0]!r} (known: {', '.join(GENERATORS)})")
    kinds = set(refactorings or REFACTORINGS)
    bad = kinds - set(REFACTORINGS)
    if bad:
        raise ValueError(
            f"unknown refactoring {sorted(bad)[0]!r} (known: {', '.join(REFACTORINGS)})"
        )
    out: list[tuple[str, Labelled[Case]]] = []
    for name in names:
        spec = GENERATORS[name]
        if not kinds & set(spec.kinds):
            continue
        for item in spec.make(bound):
            if item.value.target.kind in kinds:
                out.append((name, item))
    return out

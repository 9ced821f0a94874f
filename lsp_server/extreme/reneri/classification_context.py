"""What the classification of one transformation works from: both sides' stable
observations of the covering tests, and their differences described for people."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.extreme.model import Transformation

from .compare import Key, RawDifference, SideView
from .model import Difference
from .observe import LEN


@dataclass
class ClassificationContext:
    root: Path
    transformation: Transformation
    tests: list[str]  # covering tests, in the runner's order
    meta: dict[str, Any]
    original: Mapping[str, SideView]  # stable properties per test
    transformed: Mapping[str, SideView]
    lines: dict[str, dict[str, int | None]]  # per test: invocation -> test line
    locations: dict[int, dict[str, Any]]  # location id -> Location json + "file"

    def test_order(self, test: str) -> tuple[int, str, int, int]:
        """Smallest test first (the most focused place for a new assertion or input),
        then file order; the runner's order (e.g. fastest first) says nothing useful here."""
        function = self.meta.get("tests", {}).get(test, {}).get("function")
        info = self.meta.get("functions", {}).get(function, {}) if function else {}
        size = len(info.get("locations", ())) if info else 1 << 20
        position = self.tests.index(test) if test in self.tests else len(self.tests)
        return (size, str(info.get("file", "")), int(info.get("line", 0)), position)

    def relative(self, file: str) -> str:
        try:
            return Path(file).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return file

    def source_line(self, file: str, line: int | None) -> str:
        if line is None:
            return ""
        try:
            return Path(file).read_text(encoding="utf-8").splitlines()[line - 1].strip()
        except (OSError, IndexError):
            return ""

    def test_file(self, test: str) -> str:
        function = self.meta.get("tests", {}).get(test, {}).get("function")
        if function:
            return str(self.meta["functions"][function]["file"])
        return str(self.root / test.split("::", 1)[0])


def position_of(difference: RawDifference, context: ClassificationContext) -> tuple[int, int]:
    key = difference.key
    if key[0] in ("P", "PN"):
        location = context.locations.get(int(key[1]), {})
        return (int(location.get("stmt_line", 0)), int(key[1]))
    if key[0] == "I":
        return (0, int(key[1]))
    return (0, 1 << 30)


def value_of(views: Mapping[str, SideView], test: str, key: Key) -> str | None:
    view = views.get(test)
    return view.get(key) if view is not None else None


def call_count(context: ClassificationContext, test: str) -> int:
    """Invocations of the function in ``test`` (the same in every original run)."""
    value = value_of(context.original, test, ("IN",))
    return int(value) if value is not None and value.isdigit() else 0


# -- rendering of properties -------------------------------------------------------------


def expression(base: str, path: str) -> str:
    """The Python expression for a property ``path`` of the expression ``base``."""
    length = path.endswith(LEN)
    if length:
        path = path[: -len(LEN)]
    text = f"{base}{path}"
    return f"len({text})" if length else text


def describe(difference: RawDifference, context: ClassificationContext) -> Difference:
    key = difference.key
    test_file = context.test_file(difference.test)
    if key[0] == "P":
        location = context.locations[int(key[1])]
        base = location["text"] if key[3] == "value" else key[3]
        return Difference(
            "propagation",
            difference.test,
            context.relative(location["file"]),
            int(location["line"]),
            expression(base, key[4]),
            difference.original,
            difference.transformed,
            int(key[2]),
        )
    if key[0] == "PN":
        location = context.locations[int(key[1])]
        return Difference(
            "propagation",
            difference.test,
            context.relative(location["file"]),
            int(location["line"]),
            f"times `{location['text']}` ran",
            difference.original,
            difference.transformed,
        )
    function = context.transformation.function.rsplit(".", 1)[-1]
    if key[0] == "IN":
        return Difference(
            "infection",
            difference.test,
            context.relative(test_file),
            None,
            f"calls of {function}",
            difference.original,
            difference.transformed,
        )
    number, role, path = key[1], key[2], key[3]
    line = context.lines.get(difference.test, {}).get(number)
    return Difference(
        "infection",
        difference.test,
        context.relative(test_file),
        line,
        expression(role, path),
        difference.original,
        difference.transformed,
        int(number),
    )


def is_private_name(text: str) -> bool:
    return any(part.startswith("_") for part in text.replace("(", ".").split(".")[1:])

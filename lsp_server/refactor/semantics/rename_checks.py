"""Rename, completed over rope: the occurrences rope leaves behind are added to its edit,
those that may or may not be the renamed name come back marked uncertain.

Certain, added to the edit:
- every definition of a member in the same class hierarchy (properties, class and instance
  attributes; rope follows plain methods only) and the uses rope resolves to them;
- ``super().name`` in classes deriving from a class whose member is renamed;
- ``__all__`` entries in a file where the name itself is renamed (defined or imported);
- ``alias.name`` where every binding of ``alias`` imports the defining module
  (``semantics.module_access``): rope calls those unsure.

Uncertain, added and marked (the user confirms them):
- string literals spelling the name, for a member or module-level name: ``getattr(obj,
  "name")``, ``hasattr``, ``__all__`` elsewhere, keys of dispatch tables;
- occurrences rope calls "unsure" (the object's type is unknown) when another class
  outside the hierarchy defines the name too.
"""

from __future__ import annotations

import ast
import bisect
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rope.base.change import ChangeContents, ChangeSet
from rope.base.resources import File
from rope.refactor import occurrences

from lsp_server.project.text import line_starts, parse_python
from lsp_server.refactor.model import Uncertain
from lsp_server.refactor.semantics.module_access import is_module_attribute
from lsp_server.refactor.semantics.rename_hierarchy import Hierarchy, class_key, home_class
from lsp_server.refactor.spans import (
    Replacement,
    apply_replacements,
    replacements,
    uncertain_span,
)

STRING_REASON = "a string spelling the old name (dynamic access such as getattr?)"
UNSURE_REASON = "rope cannot tell whether this is the renamed name (unknown object type)"


@dataclass
class RenameSite:
    """What the completion needs to know about one rename."""

    project: Any
    pyname: Any
    files: list[File]
    old: str
    new: str
    relpath: Callable[[str], str]
    hierarchy: Hierarchy | None = None
    """The classes of ``files`` (when the renamed name is a class member)."""
    unsure: list[tuple[str, int, int]] = field(default_factory=list)
    """(rope path, start, end) of the occurrences rope asked about (and renamed)."""

    _texts: dict[str, str] = field(default_factory=dict)

    def unsure_filter(self, certain: bool) -> Callable[[Any], bool]:
        """rope's ``unsure`` callback: rename every unsure occurrence that is a name in
        code (the ``f`` of ``f"..."`` is one for rope), recorded as uncertain unless
        ``certain``."""

        def accept(occurrence: Any) -> bool:
            start, end = occurrence.get_word_range()
            path = occurrence.resource.path
            if path not in self._texts:
                self._texts[path] = occurrence.resource.read()
            if self._texts[path][end : end + 1] in ("'", '"'):
                return False  # a string prefix
            if not certain:
                self.unsure.append((path, start, end))
            return True

        return accept


@dataclass
class _FileSpans:
    certain: list[tuple[int, int]] = field(default_factory=list)
    uncertain: list[tuple[int, int, str]] = field(default_factory=list)


def _char_offset(starts: list[int], text: str, line: int, byte_col: int) -> int:
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    raw = text[begin:end].encode("utf-8")[:byte_col]
    return begin + len(raw.decode("utf-8", "replace"))


_PARSED: OrderedDict[str, tuple[str, ast.Module | None]] = OrderedDict()
"""The last trees parsed, by rope path, with the text each is of: a warm rename parses
only the files that changed since the renames before it."""
_PARSED_KEPT = 64


def _parsed(path: str, text: str) -> ast.Module | None:
    kept = _PARSED.get(path)
    if kept is not None and kept[0] == text:
        _PARSED.move_to_end(path)
        return kept[1]
    try:
        tree: ast.Module | None = parse_python(text)
    except (SyntaxError, ValueError):
        tree = None
    _PARSED[path] = (text, tree)
    if len(_PARSED) > _PARSED_KEPT:
        _PARSED.popitem(last=False)
    return tree


class _Sources:
    """Texts of the searched files, each parsed only when a check needs its tree: a
    rename searches dozens of files, and most hold nothing the checks look for."""

    def __init__(self, files: list[File]) -> None:
        self.files = {resource.path: resource for resource in files}
        self._texts: dict[str, str] = {}

    def text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = self.files[path].read()
        return self._texts[path]

    def get(self, path: str) -> tuple[str, ast.Module] | None:
        """Text and tree of ``path`` (None when it is not searched or does not parse)."""
        if path not in self.files:
            return None
        text = self.text(path)
        tree = _parsed(path, text)
        return None if tree is None else (text, tree)


def _is_module_level(pyname: Any) -> bool:
    module, line = pyname.get_definition_location()
    if module is None or line is None:
        return False
    return any(
        other.get_definition_location() == (module, line)
        for other in module.get_scope().get_names().values()
    )


def _hierarchy_spans(site: RenameSite, hierarchy: Hierarchy, spans: dict[str, _FileSpans]) -> None:
    """Occurrences of every related definition of the member, and ``super().old``."""
    home = home_class(site.pyname)
    key = class_key(home) if home is not None else None
    if key is None or key not in hierarchy.nodes:
        return
    related = hierarchy.related(key, site.old)
    hierarchy.check_new_name(related, site.new, site.relpath)
    for other in related:
        if other == key:
            continue
        pyname = hierarchy.objects[other].get_scope().get_names().get(site.old)
        if pyname is None:
            pyname = hierarchy.objects[other].get_attributes().get(site.old)
        if pyname is None:
            continue
        finder = occurrences.create_finder(site.project, site.old, pyname, imports=True)
        for resource in site.files:
            for occurrence in finder.find_occurrences(resource=resource):
                start, end = occurrence.get_word_range()
                spans.setdefault(resource.path, _FileSpans()).certain.append((start, end))
    _super_spans(site, hierarchy, set(related), spans)


def _super_spans(
    site: RenameSite, hierarchy: Hierarchy, related: set[Any], spans: dict[str, _FileSpans]
) -> None:
    for key, (resource, node) in hierarchy.nodes.items():
        if not hierarchy.bases.get(key, set()) & related:
            continue
        text = resource.read()
        starts = line_starts(text)
        for found in ast.walk(node):
            if not (
                isinstance(found, ast.Attribute)
                and found.attr == site.old
                and isinstance(found.value, ast.Call)
                and isinstance(found.value.func, ast.Name)
                and found.value.func.id == "super"
                and found.end_lineno is not None
                and found.end_col_offset is not None
            ):
                continue
            end = _char_offset(starts, text, found.end_lineno, found.end_col_offset)
            if text[end - len(site.old) : end] == site.old:
                spans.setdefault(resource.path, _FileSpans()).certain.append(
                    (end - len(site.old), end)
                )


def _all_entries(tree: ast.Module) -> set[int]:
    """ids of the string nodes listed in a module-level ``__all__``."""
    out: set[int] = set()
    for statement in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
            targets, value = [statement.target], statement.value
        if value is not None and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in targets
        ):
            out |= {id(n) for n in ast.walk(value) if isinstance(n, ast.Constant)}
    return out


def _lines_with(text: str, needles: tuple[str, ...], starts: list[int]) -> set[int]:
    """The (1-based) lines of ``text`` where one of ``needles`` starts."""
    lines: set[int] = set()
    for needle in needles:
        at = text.find(needle)
        while at >= 0:
            lines.add(bisect.bisect_right(starts, at))
            at = text.find(needle, at + 1)
    return lines


def _nodes_on_lines(tree: ast.Module, lines: set[int]) -> Iterator[ast.AST]:
    """Every node of the top-level statements that span one of ``lines``: a literal
    written on a line lies in the statement spanning it, and walking only those spares
    walking the whole module for the one ``__all__`` entry (most of a warm rename's
    checks)."""
    for statement in tree.body:
        last = statement.end_lineno or statement.lineno
        if any(statement.lineno <= line <= last for line in lines):
            yield from ast.walk(statement)


def _string_spans(
    site: RenameSite, sources: _Sources, renamed_in: set[str], spans: dict[str, _FileSpans]
) -> None:
    """String literals spelling the old name: certain in a renamed file's ``__all__``."""
    quoted = (f"'{site.old}'", f'"{site.old}"')
    for path in sources.files:
        # Only a literal written exactly 'old' or "old" counts (below): a file without
        # one is not parsed.
        if not any(q in sources.text(path) for q in quoted):
            continue
        found = sources.get(path)
        if found is None:
            continue
        text, tree = found
        listed = _all_entries(tree)
        starts = line_starts(text)
        # Python also ends a line at a lone "\r": then the line numbers are not ours.
        lines = None if "\r" in text else _lines_with(text, quoted, starts)
        for node in ast.walk(tree) if lines is None else _nodes_on_lines(tree, lines):
            if not (isinstance(node, ast.Constant) and node.value == site.old):
                continue
            if node.end_lineno != node.lineno or node.end_col_offset is None:
                continue
            start = _char_offset(starts, text, node.lineno, node.col_offset)
            end = _char_offset(starts, text, node.lineno, node.end_col_offset)
            literal = text[start:end]
            if len(literal) != len(site.old) + 2 or literal[0] not in "'\"":
                continue  # prefixed, triple-quoted or implicitly joined: leave it
            place = (start + 1, end - 1)
            if id(node) in listed and path in renamed_in:
                spans.setdefault(path, _FileSpans()).certain.append(place)
            else:
                spans.setdefault(path, _FileSpans()).uncertain.append((*place, STRING_REASON))


def complete_rename(site: RenameSite, changes: ChangeSet) -> tuple[ChangeSet, list[Uncertain]]:
    """rope's ``changes`` with the missing occurrences added; the uncertain ones listed."""
    texts = _Sources(site.files)
    rope_after = {c.resource.path: c.new_contents for c in _contents(changes)}
    spans: dict[str, _FileSpans] = {}
    if site.hierarchy is not None:
        _hierarchy_spans(site, site.hierarchy, spans)
    if home_class(site.pyname) is not None or _is_module_level(site.pyname):
        _string_spans(site, texts, set(rope_after), spans)
    for path, start, end in site.unsure:
        found = texts.get(path)
        if found is not None and is_module_attribute(
            site.project, site.pyname, site.project.get_resource(path), *found, start
        ):
            continue  # rope renamed it; it is certain
        spans.setdefault(path, _FileSpans()).uncertain.append((start, end, UNSURE_REASON))
    return _merged(site, changes, texts, rope_after, spans)


def _contents(changes: ChangeSet) -> list[ChangeContents]:
    out: list[ChangeContents] = []
    for change in changes.changes:
        if isinstance(change, ChangeSet):
            out.extend(_contents(change))
        elif isinstance(change, ChangeContents):
            out.append(change)
    return out


def _merged(
    site: RenameSite,
    changes: ChangeSet,
    texts: _Sources,
    rope_after: dict[str, str],
    spans: dict[str, _FileSpans],
) -> tuple[ChangeSet, list[Uncertain]]:
    uncertain: list[Uncertain] = []
    new_texts: dict[str, str] = {}
    for path, found in spans.items():
        if texts.get(path) is None:
            continue  # not searched, or does not parse
        old_text = texts.text(path)
        done = replacements(old_text, rope_after.get(path, old_text))
        real = os.path.realpath(site.project.get_resource(path).real_path)
        for start, end, reason in found.uncertain:
            if not _overlaps(done, start, end):
                done.append(Replacement(start, end, site.new))
            uncertain.append(uncertain_span(old_text, real, start, end, reason))
        for start, end in found.certain:
            if not _overlaps(done, start, end) and old_text[start:end] == site.old:
                done.append(Replacement(start, end, site.new))
        new_texts[path] = apply_replacements(old_text, done)
    if not new_texts:
        return changes, uncertain
    result = ChangeSet(changes.description)
    for change in changes.changes:
        if isinstance(change, ChangeContents) and change.resource.path in new_texts:
            text = new_texts.pop(change.resource.path)
            result.add_change(ChangeContents(change.resource, text))
        else:
            result.add_change(change)
    for path, text in new_texts.items():
        if text != texts.text(path):
            result.add_change(ChangeContents(site.project.get_resource(path), text))
    return result, uncertain


def _overlaps(done: list[Replacement], start: int, end: int) -> bool:
    return any(r.start < end and start < max(r.end, r.start + 1) for r in done)

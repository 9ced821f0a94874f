"""Refactoring requests and results as JSON data, for the rope worker process.

``RefactoringResult`` crosses the process boundary with its Provenance still to compute:
the ``ProvenancePlan`` (texts before and after, hints) travels, and the Provenance is built
where it is needed, as in one process. A result whose Provenance was built already (a
module rename and move) sends the Provenance itself.
"""

from __future__ import annotations

from typing import Any

from lsp_server.refactor.engine import PrepareResult
from lsp_server.refactor.model import (
    Edit,
    FileCreate,
    FileEdit,
    FileRename,
    RefactoringResult,
    RefactorRequest,
    SkippedFile,
    Uncertain,
)
from lsp_server.refactor.provenance import Hints, ProvenancePlan, QualnameRenamer
from lsp_server.rts.file_units import Unit
from lsp_server.rts.provenance import Origin, Provenance, TaskTarget, UnitChange

Data = dict[str, Any]


class _Texts:
    """File texts of a result, each sent once: the same text is an edit's old text, the
    plan's text before and often ``files_after``'s too (megabytes for a large file)."""

    def __init__(self, texts: list[str] | None = None) -> None:
        self.texts: list[str] = texts if texts is not None else []
        self._index: dict[str, int] = {}

    def put(self, text: str | None) -> int | None:
        if text is None:
            return None
        index = self._index.get(text)
        if index is None:
            index = self._index[text] = len(self.texts)
            self.texts.append(text)
        return index

    def get(self, index: int | None) -> str | None:
        return None if index is None else self.texts[index]

    def text(self, index: int) -> str:
        return self.texts[index]

    def put_all(self, files: dict[str, str | None]) -> dict[str, int | None]:
        return {path: self.put(text) for path, text in files.items()}

    def get_all(self, files: dict[str, int | None]) -> dict[str, str | None]:
        return {path: self.get(index) for path, index in files.items()}


def encode_request(request: RefactorRequest) -> Data:
    return {
        "action": request.action,
        "path": request.path,
        "offset": request.offset,
        "end": request.end,
        "args": request.args,
    }


def decode_request(data: Data) -> RefactorRequest:
    return RefactorRequest(
        data["action"], data["path"], data["offset"], data["end"], dict(data["args"])
    )


def encode_prepare(found: PrepareResult) -> Data:
    return {"name": found.name, "start": found.start, "end": found.end}


def decode_prepare(data: Data) -> PrepareResult:
    return PrepareResult(data["name"], data["start"], data["end"])


def _encode_edit(edit: Edit, texts: _Texts) -> Data:
    if isinstance(edit, FileEdit):
        return {"edit": edit.path, "old": texts.put(edit.old_text), "new": texts.put(edit.new_text)}
    if isinstance(edit, FileRename):
        return {"rename": edit.old_path, "to": edit.new_path}
    return {"create": edit.path, "text": texts.put(edit.text), "folder": edit.is_folder}


def _decode_edit(data: Data, texts: _Texts) -> Edit:
    if "edit" in data:
        return FileEdit(data["edit"], texts.text(data["old"]), texts.text(data["new"]))
    if "rename" in data:
        return FileRename(data["rename"], data["to"])
    return FileCreate(data["create"], texts.text(data["text"]), data["folder"])


def _unit(data: list[str] | None) -> Unit | None:
    return None if data is None else Unit(data[0], data[1])


def _units(data: list[list[str]]) -> list[Unit]:
    return [Unit(path, name) for path, name in data]


def _encode_target(target: TaskTarget | None) -> Data | None:
    if target is None:
        return None
    return {
        "action": target.action,
        "path": target.path,
        "offset": target.offset,
        "end": target.end,
    }


def _decode_target(data: Data | None) -> TaskTarget | None:
    if data is None:
        return None
    return TaskTarget(data["action"], data["path"], data["offset"], data["end"])


def _encode_plan(plan: ProvenancePlan, texts: _Texts) -> Data:
    hints = plan.hints
    renamer = hints.name_map
    if renamer is not None and not isinstance(renamer, QualnameRenamer):
        raise TypeError(f"a name map must be a QualnameRenamer to cross processes: {renamer!r}")
    return {
        "kind": plan.kind,
        "description": plan.description,
        "before": texts.put_all(plan.before),
        "after": texts.put_all(plan.after),
        "renamed": plan.renamed,
        "target": _encode_target(plan.target),
        "exact": plan.exact,
        "hints": {
            "name_map": None if renamer is None else [renamer.old, renamer.new],
            "pair_moved": hints.pair_moved,
            "derived_from": [list(unit) for unit in hints.derived_from],
            "derived_origin": hints.derived_origin.value,
            "creates": hints.creates,
            "removes": hints.removes,
        },
    }


def _decode_plan(data: Data, texts: _Texts) -> ProvenancePlan:
    hints = data["hints"]
    name_map = hints["name_map"]
    return ProvenancePlan(
        data["kind"],
        data["description"],
        texts.get_all(data["before"]),
        texts.get_all(data["after"]),
        data["renamed"],
        Hints(
            name_map=None if name_map is None else QualnameRenamer(*name_map),
            pair_moved=hints["pair_moved"],
            derived_from=_units(hints["derived_from"]),
            derived_origin=Origin(hints["derived_origin"]),
            creates=hints["creates"],
            removes=hints["removes"],
        ),
        _decode_target(data["target"]),
        data["exact"],
    )


def _encode_provenance(prov: Provenance, texts: _Texts) -> Data:
    return {
        "kind": prov.kind,
        "description": prov.description,
        "changes": [
            [
                change.origin.value,
                None if change.old is None else list(change.old),
                None if change.new is None else list(change.new),
                [list(unit) for unit in change.sources],
            ]
            for change in prov.changes
        ],
        "exact": prov.exact,
        "files_before": texts.put_all(prov.files_before),
        "files_after": texts.put_all(prov.files_after),
        "target": _encode_target(prov.target),
    }


def _decode_provenance(data: Data, texts: _Texts) -> Provenance:
    changes = [
        UnitChange(Origin(origin), _unit(old), _unit(new), tuple(_units(sources)))
        for origin, old, new, sources in data["changes"]
    ]
    return Provenance(
        data["kind"],
        data["description"],
        changes,
        data["exact"],
        texts.get_all(data["files_before"]),
        texts.get_all(data["files_after"]),
        _decode_target(data["target"]),
    )


def encode_result(result: RefactoringResult) -> Data:
    maker = result.provenance_maker
    texts = _Texts()
    data: Data = {
        "edits": [_encode_edit(edit, texts) for edit in result.edits],
        "skipped": [[s.path, s.reason] for s in result.skipped_files],
        "files_after": texts.put_all(result.files_after),
        "uncertain": [[u.path, u.line, u.column, u.length, u.reason] for u in result.uncertain],
    }
    if isinstance(maker, ProvenancePlan):
        data["plan"] = _encode_plan(maker, texts)
    else:
        data["provenance"] = _encode_provenance(result.provenance, texts)
    data["texts"] = texts.texts
    return data


def decode_result(data: Data) -> RefactoringResult:
    texts = _Texts(data["texts"])
    provenance = (
        _decode_plan(data["plan"], texts)
        if "plan" in data
        else _decode_provenance(data["provenance"], texts)
    )
    return RefactoringResult(
        [_decode_edit(edit, texts) for edit in data["edits"]],
        provenance,
        [SkippedFile(path, reason) for path, reason in data["skipped"]],
        texts.get_all(data["files_after"]),
        [Uncertain(*item) for item in data["uncertain"]],
    )

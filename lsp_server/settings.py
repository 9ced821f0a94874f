"""Server settings: typed dataclasses with defaults, one section per feature.

Clients send settings as ``initializationOptions`` and in ``workspace/didChangeConfiguration``
either at the top level or under a ``"reks"`` key, nested by dots the way the VS Code
extension contributes them (``reks.actions.extractMethod`` -> ``{"actions":
{"extractMethod": ...}}``). Unknown keys are ignored; values of the wrong type keep the
default. To add a section: a dataclass here, a field on ``Settings``, and a line in
``Settings.from_json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class ActionSettings:
    """Which refactoring code actions are offered (each can be switched off)."""

    extractMethod: bool = True
    extractVariable: bool = True
    inline: bool = True
    move: bool = True
    introduceParameter: bool = True
    changeSignature: bool = True
    encapsulateField: bool = True
    localToField: bool = True
    methodObject: bool = True
    useFunction: bool = True
    introduceFactory: bool = True
    organizeImports: bool = True


@dataclass
class DefaultNames:
    """Names given to what a refactoring creates before the user renames it."""

    extractedMethod: str = "extracted_method"
    extractedVariable: str = "extracted_variable"
    parameter: str = "new_parameter"
    methodObject: str = "_MethodObject"
    factory: str = "create"


@dataclass
class TestSettings:
    """Running affected tests (REKS, ``lsp_server.lsp.features.test_selection``)."""

    pytestArgs: list[str] = field(default_factory=list)
    summary: str = "progress"
    """Where the per-refactoring summary goes: "progress" ($/progress end message),
    "message" (window/showMessage) or "none"."""


@dataclass
class ExtremeSettings:
    """The extreme analysis ("Analyse weak tests", ``lsp_server.lsp.features.weak_tests``)."""

    jobs: int = 0
    """Worker processes; 0: one per core."""
    skipPatterns: list[str] = field(default_factory=list)
    """Qualified-name globs of functions left alone (with the project's own patterns)."""
    timeoutFactor: float = 3.0
    """Timeout = 1 s + this factor x the covering tests' normal duration."""
    incremental: bool = True
    """Keep the verdicts of functions whose code and covering tests did not change."""
    timeoutBase: float = 1.0
    """Seconds added to every transformation's timeout (fork, fixture setup)."""
    testTimeout: float = 120.0
    """Cap in seconds on one test on the original code; a test still running is stopped,
    reported (``hungTests``) and left out."""
    collectTimeout: float = 600.0
    """Cap in seconds on starting a worker (imports and test collection)."""
    onDisk: bool = True
    """Check functions that ran at import time on disk (a private copy with the file
    rewritten); off: report them "not analysable in place"."""
    verify: int = 0
    """Undetected verdicts to check again the plain way; a disagreement is a defect."""
    scheduler: str = ""
    """A Dask distributed scheduler's address that runs the transformations (empty: local
    worker processes)."""
    pytestArgs: list[str] = field(default_factory=list)
    """Extra pytest arguments of the analysis's workers."""


ON_SAVE_CHOICES = ("organizeImports",)
"""Refactorings that may run on save (behaviour-preserving and local to the saved file)."""
VERIFY_SKIPPED_CHOICES = ("idle", "off")


@dataclass
class Settings:
    actions: ActionSettings = field(default_factory=ActionSettings)
    defaultNames: DefaultNames = field(default_factory=DefaultNames)
    onSave: list[str] = field(default_factory=list)
    """Refactor-on-save (``textDocument/willSaveWaitUntil``). Off by default: an edit the
    user did not ask for on every save surprises; organizing imports can be switched on."""
    onSaveTimeout: float = 1.5
    """Seconds a refactoring on save may take; after that the save goes on without it: a
    save must never wait long for ``willSaveWaitUntil``."""
    python: str = ""
    """The interpreter the project's tests run in (empty: the active virtualenv, a
    ``.venv``/``venv`` in the root, or the server's own; ``lsp_server.project``)."""
    trustButVerify: bool = True
    """REKS: check each refactoring (compiles, no new undefined names, jedi agrees on
    renames) before trusting it; a failed check makes it a hand edit (its tests run)."""
    tests: TestSettings = field(default_factory=TestSettings)
    verifySkipped: str = "idle"
    """"idle": run the tests REKS skipped, not yet verified, in the background once no
    request came for ``verifySkippedAfter`` seconds; "off": never."""
    verifySkippedAfter: float = 60.0
    extreme: ExtremeSettings = field(default_factory=ExtremeSettings)

    @classmethod
    def from_json(cls, data: Any) -> Settings:
        settings = cls()
        settings.update(data)
        return settings

    def update(self, data: Any) -> None:
        """Merge a settings payload into these settings."""
        if not isinstance(data, dict):
            return
        if isinstance(data.get("reks"), dict):
            data = data["reks"]
        _merge(self.actions, data.get("actions"))
        _merge(self.defaultNames, data.get("defaultNames"), names=True)
        _merge(self.tests, data.get("tests"))
        _merge(self.extreme, data.get("extreme"))
        if isinstance(data.get("python"), str):
            self.python = data["python"]
        if isinstance(data.get("trustButVerify"), bool):
            self.trustButVerify = data["trustButVerify"]
        if data.get("verifySkipped") in VERIFY_SKIPPED_CHOICES:
            self.verifySkipped = data["verifySkipped"]
        after = _seconds(data.get("verifySkippedAfter"))
        if after is not None:
            self.verifySkippedAfter = after
        budget = _seconds(data.get("onSaveTimeout"))
        if budget is not None:
            self.onSaveTimeout = budget
        on_save = data.get("onSave")
        if isinstance(on_save, list):
            self.onSave = [str(x) for x in on_save if str(x) in ON_SAVE_CHOICES]


def _seconds(value: Any) -> float | None:
    """A JSON duration in seconds (a number, not a boolean, at least 0), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def _merge(target: object, data: Any, names: bool = False) -> None:
    """Copy the values of ``data`` that have their field's type onto ``target`` (a whole
    number counts for a float field: JSON writes 1.0 as 1). ``names``: a string must also
    be usable as a Python name."""
    if not isinstance(data, dict):
        return
    for f in fields(target):  # type: ignore[arg-type]
        value = data.get(f.name)
        default = getattr(target, f.name)
        if type(default) is float and type(value) is int:
            value = float(value)
        if value is None or type(value) is not type(default):
            continue
        if names and isinstance(value, str) and not value.isidentifier():
            continue
        setattr(target, f.name, value)

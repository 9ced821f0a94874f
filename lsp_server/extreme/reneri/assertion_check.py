"""Checking a suggested assertion: in a copy of the project, the strengthened test must pass
on the original code and fail on the transformed code."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lsp_server.project.files import copy_ignore

from .edit import EditError, insert_assertion
from .model import Diagnosis
from .observation_runs import run_observations


@dataclass(frozen=True)
class Verification:
    passes_on_original: bool
    fails_on_transformed: bool
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.passes_on_original and self.fails_on_transformed


def verify_assertion(
    root: Path, diagnosis: Diagnosis, *, timeout: float = 60.0, python: str | None = None
) -> Verification:
    """Insert the assertion in a temporary copy of ``root`` and run its test on both sides."""
    assertion = diagnosis.assertion
    if assertion is None or diagnosis.test is None:
        raise ValueError("the diagnosis has no assertion to verify")
    with tempfile.TemporaryDirectory(prefix="reks-reneri-verify-") as scratch:
        copy = Path(scratch, "project")
        shutil.copytree(root, copy, ignore=copy_ignore(root), symlinks=True)
        test_file = copy / assertion.path
        try:
            test_file.write_text(
                insert_assertion(test_file.read_text(encoding="utf-8"), assertion),
                encoding="utf-8",
            )
        except (OSError, EditError) as exc:
            return Verification(False, False, str(exc))
        observed = run_observations(
            copy,
            diagnosis.transformation,
            [diagnosis.test],
            runs=1,
            timeout=timeout,
            python=python,
        )
        if observed.error or not observed.original:
            return Verification(False, False, observed.error or observed.log[-500:])
        passes = not any(r["failed"] for r in observed.original[0].values())
        # A transformed run that crashed or timed out counts as failing, as for the runner.
        fails = not observed.transformed or any(
            r["failed"] for r in observed.transformed[0].values()
        )
        return Verification(passes, fails)

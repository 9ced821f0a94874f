"""Test factoring: capture a slow test's calls across a boundary and replay them.

From Python (and for the editor's "Factor this test" action):

- ``suggest_boundaries(root, nodeid, job)``: candidate boundaries ranked by expected saving,
  each with the reason when replay would not be faster;
- ``factor_test(root, nodeid, boundaries, job)``: capture, emit the factored test and its
  transcript beside the original, check it; a ``FactorResult`` (status, reason, figures);
- ``stale_factored_tests(root)``: factored tests whose environment changed since capture;
- ``factored_test_warnings(root)``: what may make a factored test fail on unchanged code
  later (T read the wall clock during capture).

The factored tests run under the pytest plugin ``lsp_server.factoring.plugin``.
Every pytest run loads that plugin (an entry point), so these names are imported when
first used (PEP 562): importing the package must not import the factoring machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lsp_server.factoring.factor import (
        FactorResult,
        StaleTest,
        factor_test,
        factor_tests,
        factored_test_warnings,
        stale_factored_tests,
        suggest_boundaries,
    )
    from lsp_server.factoring.suggest import Candidate

_HOMES = {
    "Candidate": "suggest",
    "FactorResult": "factor",
    "StaleTest": "factor",
    "factor_test": "factor",
    "factor_tests": "factor",
    "factored_test_warnings": "factor",
    "stale_factored_tests": "factor",
    "suggest_boundaries": "factor",
}

__all__ = [
    "Candidate",
    "FactorResult",
    "StaleTest",
    "factor_test",
    "factor_tests",
    "factored_test_warnings",
    "stale_factored_tests",
    "suggest_boundaries",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value

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
"""

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

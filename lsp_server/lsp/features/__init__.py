"""The server's features, one module or package each; ``server.py`` registers ``FEATURES``.

To add a feature: subclass ``lsp_server.lsp.feature.Feature`` in a module of this package,
give it the methods, commands and hooks it serves, and list it here.
"""

from __future__ import annotations

from lsp_server.lsp.feature import Feature
from lsp_server.lsp.features.client_configuration import ClientConfigurationFeature
from lsp_server.lsp.features.field_exhaustive import FieldExhaustiveFeature
from lsp_server.lsp.features.refactoring import RefactoringFeature
from lsp_server.lsp.features.skipped_verification import SkippedVerificationFeature
from lsp_server.lsp.features.test_factoring import FactoringFeature
from lsp_server.lsp.features.test_selection import TestSelectionFeature
from lsp_server.lsp.features.weak_test_diagnosis import WeakTestDiagnosisFeature
from lsp_server.lsp.features.weak_tests import WeakTestsFeature

FEATURES: tuple[type[Feature], ...] = (
    RefactoringFeature,
    TestSelectionFeature,
    SkippedVerificationFeature,
    WeakTestsFeature,
    WeakTestDiagnosisFeature,
    FactoringFeature,
    FieldExhaustiveFeature,
    ClientConfigurationFeature,
)

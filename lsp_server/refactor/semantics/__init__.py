"""Semantic checks of refactorings, per kind, on the simulated project before an edit is
returned."""

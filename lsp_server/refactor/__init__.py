"""Refactorings with rope: project lifecycle, one module per refactoring family, rope
changes converted to plain edits, and the Provenance of each task."""

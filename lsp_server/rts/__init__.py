"""Regression test selection: unit checksums, the dependency store, the REKS update rules,
selection, and the pytest plugin that records and selects."""

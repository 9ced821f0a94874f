"""reks: a Python language server that refactors with rope, skips the tests a refactoring
cannot have broken, and finds code the tests execute without checking."""

__version__ = "0.1.0"

"""reks: a Python language server that refactors with rope, skips the tests a refactoring
cannot have broken, and finds code the tests execute without checking.

PYTEST_DONT_REWRITE: the extreme analysis's pytest workers import this package before
pytest starts; pytest (which knows it as a plugin's package) would otherwise warn that it
cannot rewrite it, and a project that turns warnings into errors would lose its workers.
"""

__version__ = "0.1.0"

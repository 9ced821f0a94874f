"""The command-line front ends are tested on the projects of the packages they front."""

from tests.refactor.conftest import project, run_tests

__all__ = ["project", "run_tests"]

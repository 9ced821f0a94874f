"""Fixtures of the REKS tests: a recorded project and an engine with the task listener."""

from tests.refactor.conftest import tmp_engine
from tests.support.reks import project, recorded_template, reks

__all__ = ["project", "recorded_template", "reks", "tmp_engine"]

"""Fixtures of the REKS tests: a recorded project and an engine with the task listener."""

from tests.support.reks import project, recorded_template, reks

__all__ = ["project", "recorded_template", "reks"]

"""Fixtures of the REKS tests (see ``helpers``)."""

from .helpers import project, recorded_template, reks

__all__ = ["project", "recorded_template", "reks"]

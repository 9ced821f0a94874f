"""The bottom layer: what every feature needs to know about the project it works on.

``Project`` holds the root, which files are project code (one exclusion list, also served to
the editor clients), the interpreter the project's tests run in, the ``[tool.reks]``
configuration, and the shared text helpers live beside it in ``project.text``. Nothing here
imports another package of ours.
"""

from lsp_server.project.config import ProjectConfig, load_config
from lsp_server.project.files import (
    EXCLUDED_DIRS,
    ROOT_ONLY_EXCLUDED_DIRS,
    ProjectPaths,
    exclusion_globs,
    is_excluded_dir,
    python_files,
)
from lsp_server.project.interpreter import interpreter_problem, project_python
from lsp_server.project.model import Project

__all__ = [
    "EXCLUDED_DIRS",
    "ROOT_ONLY_EXCLUDED_DIRS",
    "Project",
    "ProjectConfig",
    "ProjectPaths",
    "exclusion_globs",
    "interpreter_problem",
    "is_excluded_dir",
    "load_config",
    "project_python",
    "python_files",
]

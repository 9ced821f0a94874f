"""``[tool.reks]`` of the project's pyproject.toml, read once per project."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def toml_module() -> Any:
    """tomllib (3.11+) or tomli; None on a 3.10 without tomli (no configuration then)."""
    for name in ("tomllib", "tomli"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


@dataclass(frozen=True)
class ProjectConfig:
    """The ``[tool.reks]`` table; each feature reads its own section."""

    data: dict[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> dict[str, Any]:
        """``[tool.reks.<name>]`` (empty when absent or not a table)."""
        value = self.data.get(name)
        return value if isinstance(value, dict) else {}

    def strings(self, section: str, key: str) -> list[str]:
        """A list of strings in a section (empty when absent or of another type)."""
        value = self.section(section).get(key, [])
        return [str(item) for item in value] if isinstance(value, list) else []


def load_config(root: Path) -> ProjectConfig:
    """The project's ``[tool.reks]``; an unreadable or invalid file counts as none."""
    pyproject = Path(root) / "pyproject.toml"
    toml = toml_module()
    if toml is None or not pyproject.exists():
        return ProjectConfig()
    try:
        data = toml.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):  # TOMLDecodeError is a ValueError
        return ProjectConfig()
    tool = data.get("tool", {})
    reks = tool.get("reks", {}) if isinstance(tool, dict) else {}
    return ProjectConfig(reks if isinstance(reks, dict) else {})

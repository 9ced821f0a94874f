"""The environment fingerprint of a test session.

A session's results only carry over to the next one when the environment is the same:
same Python, same installed distributions, same plugin-relevant pytest options. Project
files are not part of it (they are units); site-packages are, because reks does not track
code outside the project root.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass, field

import xxhash

from lsp_server.rts.analysis_digest import analysis_code_digest
from lsp_server.rts.installed_distributions import ENTRY_POINTS, distributions_digest


@dataclass(frozen=True)
class Fingerprint:
    """What a recorded result depends on besides project files.

    ``options`` is None when the caller does not know the pytest options (e.g. ``reks
    affected`` outside pytest); options are then not compared.
    """

    python: str
    distributions: str  # hash of the installed distribution names and versions
    options: str | None = None
    recorder: str = ""  # digest of reks's recording code (``analysis_code_digest``)
    details: dict[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def environment(self) -> str:
        """Hash of the Python and distribution part (always comparable)."""
        # The recording code too: newer rules record units older ones did not, so a store
        # another version of them filled is no evidence that a test is unaffected.
        text = f"{self.python}\x00{self.distributions}\x00{self.recorder}"
        return xxhash.xxh3_64_hexdigest(text.encode())

    def differs_from(self, environment: str, options: str | None) -> bool:
        if environment != self.environment:
            return True
        return self.options is not None and options is not None and options != self.options


def python_identity() -> str:
    return f"{platform.python_implementation()} {sys.version} {sys.prefix}"


def options_digest(options: dict[str, object]) -> str:
    return xxhash.xxh3_64_hexdigest(json.dumps(options, sort_keys=True, default=repr).encode())


def current_fingerprint(options: dict[str, object] | None = None) -> Fingerprint:
    """Fingerprint of this interpreter; pass ``options`` from inside a pytest session."""
    digest, names = distributions_digest()
    recorder = analysis_code_digest()
    return Fingerprint(
        python=python_identity(),
        distributions=digest,
        options=None if options is None else options_digest(options),
        recorder=recorder,
        details={
            "recorder": recorder,
            "distributions": len(names),
            "options": options or {},
            "python": python_identity(),
            "packages": sorted(os.path.basename(n) for n in names),
        },
    )


def explain_change(before: dict[str, object], after: dict[str, object]) -> str:
    """What differs between two fingerprints' details, in words (which package was added,
    removed or upgraded, which option changed); empty when the details do not tell."""
    parts: list[str] = []
    if before.get("python") and before.get("python") != after.get("python"):
        parts.append(
            f"Python {str(before['python']).split()[1]} -> {str(after['python']).split()[1]}"
        )
    if before.get("recorder") != after.get("recorder"):
        parts.append("reks's recording code changed")
    old = set(map(str, before.get("packages") or ()))  # type: ignore[call-overload]
    new = set(map(str, after.get("packages") or ()))  # type: ignore[call-overload]
    if old or new:
        parts.extend(_package_changes(old - new, new - old))
    parts.extend(_option_changes("", before.get("options"), after.get("options")))
    return "; ".join(parts)


def _package_changes(removed: set[str], added: set[str]) -> list[str]:
    """In words: each distribution removed or installed, and those whose entry points or
    ``.pth`` text changed under the same name (a reinstall at the same version)."""
    before = {name.split(" ", 1)[0]: name for name in removed}
    after = {name.split(" ", 1)[0]: name for name in added}
    parts = [f"removed {key}" for key in sorted(before.keys() - after.keys())]
    parts.extend(f"installed {key}" for key in sorted(after.keys() - before.keys()))
    for key in sorted(before.keys() & after.keys()):
        what = "entry points of " if ENTRY_POINTS in before[key] + after[key] else ""
        parts.append(f"changed {what}{key}")
    return parts


def _option_changes(prefix: str, old: object, new: object) -> list[str]:
    """``option a.b: x -> y`` for every differing leaf of two nested option dicts."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(old.keys() | new.keys()):
            out.extend(_option_changes(f"{prefix}{key}.", old.get(key), new.get(key)))
        return out
    if old == new:
        return []
    return [f"option {prefix.rstrip('.')}: {old!r} -> {new!r}"]

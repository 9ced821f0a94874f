"""Source distributions for the benchmarks: real projects with their tests, from PyPI."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path


def fetch_sdist(requirement: str, dest: Path, python: str = sys.executable) -> Path:
    """Download the sdist of ``requirement`` (``name==version``) into ``dest/sdist`` and
    unpack it into ``dest``, each once; the unpacked folder."""
    sdist = dest / "sdist"
    name = requirement.split("==")[0].lower().replace("-", "_")

    def archives() -> list[Path]:
        found = sdist.glob("*.tar.gz") if sdist.exists() else []
        return [p for p in found if p.name.lower().replace("-", "_").startswith(name)]

    if not archives():
        command = [python, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
        subprocess.run(
            [*command, "-d", str(sdist), requirement],
            check=True,
        )
    archive = archives()[0]
    target = dest / archive.name.removesuffix(".tar.gz")
    if not target.exists():
        with tarfile.open(archive) as tar:
            tar.extractall(dest, filter="data")
    return target

"""REKS vs pytest-testmon on a rename in click 8.5.1 (sdist with its test suite).

In a temporary venv (reks editable from this checkout, pytest-testmon from PyPI) and two
copies of click's source tree, both tools record the whole suite; then a private function
used in 4 files (``_split_opt``, defined in ``src/click/parser.py``) is renamed:

* through reks (``reks refactor rename FILE:LINE:COL NEW --apply``): the REKS rules update
  the dependency store, so ``pytest --reks`` should run nothing;
* as a plain edit (the same files written over) for testmon: ``pytest --testmon`` reruns
  every test whose dependencies the edit touched.

Prints both counts from the same run, the REKS rule time, and whether the full suite
still passes after the rename; a second, cleaner private function is renamed as well
(see ``TARGETS``).

    python bench/reks_rename_click.py [--workdir /tmp/reks-bench-click]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import venv
from dataclasses import dataclass
from pathlib import Path

from sdist import fetch_sdist

REPO = Path(__file__).resolve().parents[1]
CLICK = "click==8.5.1"
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|deselected|xfailed|xpassed|errors?)\b")


def sh(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(
        ["nice", "-n", "10", *cmd], cwd=cwd, env=env, capture_output=True, text=True
    )
    return done


def setup(workdir: Path) -> tuple[Path, Path]:
    """(venv python, extracted click source); both reused across runs."""
    python = workdir / "venv/bin/python"
    if not python.exists():
        venv.create(workdir / "venv", with_pip=True)
        done = sh(
            # click itself too: its tests read its version from the installed metadata
            # (the code they run comes from each copy's src/, first on PYTHONPATH).
            [str(python), "-m", "pip", "install", "-q", "-e", str(REPO), "pytest-testmon", CLICK],
            workdir,
        )
        if done.returncode != 0:
            sys.exit(f"pip install failed:\n{done.stderr[-2000:]}")
    source = fetch_sdist(CLICK, workdir, str(python))
    return python, source


def counts(output: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for line in output.splitlines()[::-1]:
        if line.startswith("=") or re.search(r"\d+ (passed|deselected)", line):
            for number, word in _COUNT.findall(line):
                found[word.rstrip("s") if word.startswith("error") else word] = int(number)
            if found:
                return found
    return found


def pytest(python: Path, root: Path, *args: str) -> tuple[dict[str, int], float, str]:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    start = time.perf_counter()
    done = sh([str(python), "-m", "pytest", "-q", "-p", "no:randomly", *args], root, env)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 5):
        print(done.stdout[-3000:], done.stderr[-2000:], file=sys.stderr)
    return counts(done.stdout), elapsed, done.stdout


def position(root: Path, target: Target) -> tuple[int, int]:
    lines = (root / target.defined_in).read_text().splitlines()
    for number, line in enumerate(lines, 1):
        if line.startswith(f"def {target.function}("):
            return number, len("def ") + 1
    sys.exit(f"{target.function} not found in {target.defined_in}")


def changed_files(original: Path, edited: Path) -> list[str]:
    out = []
    for path in sorted(edited.rglob("*.py")):
        rel = path.relative_to(edited)
        if rel.parts[0] in (".reks", ".pytest_cache") or "__pycache__" in rel.parts:
            continue
        before = original / rel
        if not before.exists() or before.read_bytes() != path.read_bytes():
            out.append(rel.as_posix())
    return out


def last_task(root: Path) -> dict[str, object]:
    conn = sqlite3.connect(root / ".reks/deps.sqlite")
    try:
        row = conn.execute("SELECT details FROM reks_tasks ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.OperationalError:
        return {}  # no task was recorded (no store when the rename ran)
    finally:
        conn.close()
    return json.loads(row[0]) if row else {}


@dataclass(frozen=True)
class Target:
    """A private function to rename, where it is defined, and its new name."""

    function: str
    new_name: str
    defined_in: str


TARGETS = [
    # The function: private, used in 4 files (parser, core, formatting and
    # tests/test_deprecations.py). click's deprecation shim `parser.__getattr__` looks it up
    # as globals()[f"_{name}"], so the rename is not behaviour-preserving: one test fails.
    Target("_split_opt", "_split_option", "src/click/parser.py"),
    # A private function without dynamic lookups (utils, core, its own test file).
    Target("_expand_args", "_expand_arguments", "src/click/utils.py"),
]


def rename_once(
    python: Path, workdir: Path, recorded: dict[str, Path], source: Path, target: Target, total: int
) -> bool:
    reks_root, testmon_root = workdir / "reks", workdir / "testmon"
    for root, template in ((reks_root, recorded["reks"]), (testmon_root, recorded["testmon"])):
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(template, root)
    line, col = position(reks_root, target)
    start = time.perf_counter()
    done = sh(
        [
            str(python.parent / "reks"), "refactor", "rename",
            f"{target.defined_in}:{line}:{col}", target.new_name, "--apply",
        ],
        reks_root,
    )  # fmt: skip
    refactor_s = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"reks refactor failed:\n{done.stderr[-2000:]}")
    files = changed_files(source, reks_root)
    task = last_task(reks_root)
    print(f"\nrename `{target.function}` -> `{target.new_name}`: {len(files)} files {files}")
    said = [x for x in done.stderr.splitlines() if x.startswith("reks: ")]
    print(f"  reks refactor --apply: {refactor_s:.1f} s; " + " | ".join(said))
    print(f"  REKS rule time {float(task.get('seconds', 0.0)) * 1000:.1f} ms;"
          f" treated as a hand edit: {task.get('fallback') or 'no'}")  # fmt: skip
    for rel in files:  # the same edit, typed by hand, for testmon
        dest = testmon_root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(reks_root / rel, dest)

    reks_run, _, _ = pytest(python, reks_root, "--reks")
    testmon_run, _, _ = pytest(python, testmon_root, "--testmon")
    reks_ran = sum(v for k, v in reks_run.items() if k != "deselected")
    testmon_ran = sum(v for k, v in testmon_run.items() if k != "deselected")
    print(f"  tests rerun: testmon {testmon_ran} of {total}"
          f" ({100 * testmon_ran / max(total, 1):.0f}%) {testmon_run}")  # fmt: skip
    print(f"               reks    {reks_ran} of {total}"
          f" ({100 * reks_ran / max(total, 1):.0f}%) {reks_run}")  # fmt: skip
    full, full_s, _ = pytest(python, reks_root, "-p", "no:cacheprovider")
    passed = full.get("failed", 0) == 0 and full.get("error", 0) == 0
    print(f"  full suite after the rename: {full} in {full_s:.1f} s"
          f" -> {'passes' if passed else 'FAILS'}")  # fmt: skip
    return passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/reks-bench-click"))
    args = parser.parse_args()
    workdir: Path = args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    python, source = setup(workdir)
    recorded = {"reks": workdir / "reks-recorded", "testmon": workdir / "testmon-recorded"}
    for root in recorded.values():
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(source, root)
    counted, reks_record_s, _ = pytest(python, recorded["reks"], "--reks-all")
    _, testmon_record_s, _ = pytest(python, recorded["testmon"], "--testmon")
    total = sum(v for k, v in counted.items() if k != "deselected")
    print(f"click 8.5.1: {total} tests ({counted})")
    print(f"record: pytest --reks-all {reks_record_s:.1f} s,"
          f" pytest --testmon {testmon_record_s:.1f} s")  # fmt: skip
    results = [rename_once(python, workdir, recorded, source, t, total) for t in TARGETS]
    return 0 if results[-1] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Put the reks server into the extension: ``bundled/libs`` and ``bundled/<reks wheel>``.

Run by ``npm run bundle`` (part of ``npm run package``) from a clone of reks, as the Python
tool extensions of VS Code (black, isort, mypy) do: the libraries are installed with
``pip install --target``. When the interpreter the user selected lacks reks, the extension
runs ``python -m lsp_server`` with ``PYTHONPATH=bundled/libs``; the wheel is what its
install hint names (``python -m pip install <extension>/bundled/reks-....whl``).

What is left out, and why:
- pytest and its own dependencies: the project's tests run with the project's pytest;
  a second copy on ``PYTHONPATH`` would replace it in every test run reks starts.
- python-sat (30 MB of solvers for four Pythons): only ``reks fex`` uses it, and says so
  when it is missing.
- compiled modules for other platforms: the libraries are resolved for the oldest
  supported Python (so its backports are in) and the compiled part (xxhash) is added for
  every supported CPython of this machine's platform: the .vsix is for this platform.

Rebuilding is cached: the dependencies are installed again only when pyproject.toml
changes, into ``$REKS_BUNDLE_CACHE`` (``.ci/setup-system`` keeps it with the editors,
outside the clone; default ``bundled/.cache``); reks itself is rebuilt on every run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent
REPO = CLIENT.parent
BUNDLED = CLIENT / "bundled"
LIBS = BUNDLED / "libs"
CACHE = Path(os.environ.get("REKS_BUNDLE_CACHE") or BUNDLED / ".cache")
DEPS = CACHE / "libs"
STAMP = CACHE / "stamp"
OLDEST = "3.10"
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
COMPILED = ("xxhash",)
LEFT_OUT = ("pytest", "_pytest", "py.py", "pluggy", "iniconfig", "pygments", "bin")
LEFT_OUT_COMPILED = ("pysat", "python_sat", "pycard*.so", "pysolvers*.so")


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--quiet", *args], check=True)


def _platform() -> str:
    """pip's platform tag for manylinux wheels of this machine (e.g. manylinux2014_x86_64)."""
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return plat.replace("linux_", "manylinux2014_") if plat.startswith("linux_") else plat


def _wheel(into: Path) -> Path:
    for old in into.glob("reks-*.whl"):
        old.unlink()
    _pip("wheel", "--no-deps", "--wheel-dir", str(into), str(REPO))
    return next(into.glob("reks-*.whl"))


def _stamp() -> str:
    return hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()


def _dependencies(wheel: Path) -> None:
    """Every dependency, resolved for the oldest Python, then compiled parts for the rest."""
    shutil.rmtree(DEPS, ignore_errors=True)
    binary = ["--only-binary=:all:", "--platform", _platform(), "--implementation", "cp"]
    _pip("install", "--target", str(DEPS), "--no-compile", *binary, "--python-version", OLDEST,
         str(wheel))  # fmt: skip
    versions = dict(
        p.name.removesuffix(".dist-info").lower().split("-", 1) for p in DEPS.glob("*.dist-info")
    )
    pinned = [f"{name}=={versions[name.replace('-', '_')]}" for name in COMPILED]
    for python in PYTHONS:
        if python == OLDEST:
            continue
        with tempfile.TemporaryDirectory() as extra:
            _pip("install", "--target", extra, "--no-deps", "--no-compile", *binary,
                 "--python-version", python, *pinned)  # fmt: skip
            for compiled in Path(extra).rglob("*.so"):
                target = DEPS / compiled.relative_to(extra)
                if not target.exists():
                    shutil.copy2(compiled, target)
    for name in LEFT_OUT + LEFT_OUT_COMPILED:
        for path in [DEPS / name, *DEPS.glob(f"{name}-*.dist-info"), *DEPS.glob(name)]:
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink(missing_ok=True)
    for reks in [DEPS / "lsp_server", *DEPS.glob("reks-*.dist-info")]:
        shutil.rmtree(reks)  # the copy of this run is installed on top
    STAMP.write_text(_stamp())


def main() -> int:
    BUNDLED.mkdir(exist_ok=True)
    wheel = _wheel(BUNDLED)
    if not STAMP.exists() or STAMP.read_text() != _stamp() or not DEPS.is_dir():
        print(f"bundle: installing reks's dependencies into {DEPS}", file=sys.stderr)
        CACHE.mkdir(parents=True, exist_ok=True)
        _dependencies(wheel)
    shutil.rmtree(LIBS, ignore_errors=True)
    shutil.copytree(DEPS, LIBS)
    _pip("install", "--target", str(LIBS), "--no-deps", "--no-compile", str(wheel))
    size = sum(p.stat().st_size for p in LIBS.rglob("*") if p.is_file())
    print(f"bundle: {LIBS} ({size / 1e6:.1f} MB), {wheel.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

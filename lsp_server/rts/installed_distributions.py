"""The distributions installed in this interpreter's site directories, as one digest: what
a recorded result (``rts.fingerprint``) and a kept analysis (``rts.analysis_cache``, which
proves names of installed libraries bound: ``rts.library_names``) depend on besides the
project's files."""

from __future__ import annotations

import os
import sysconfig

import xxhash

_DIST_SUFFIXES = (".dist-info", ".egg-info", ".egg-link", ".pth")
ENTRY_POINTS = " entry points"
"""What marks a distribution's entry points in ``distributions_digest``'s names."""


def _site_dirs() -> list[str]:
    paths = sysconfig.get_paths()
    dirs = {paths.get("purelib", ""), paths.get("platlib", "")}
    try:
        import site

        dirs.update(site.getsitepackages())
        dirs.add(site.getusersitepackages())
    except (AttributeError, ImportError):  # embedded or virtualenv-patched site modules
        pass
    return sorted(d for d in dirs if d and os.path.isdir(d))


def distributions_digest() -> tuple[str, list[str]]:
    """Hash of the distributions installed in this interpreter's site directories.

    Listing ``*.dist-info`` names (they carry the version) is much cheaper than reading
    every distribution's metadata, and changes whenever anything is installed, upgraded
    or removed. What a reinstall at the same version can change without renaming anything
    is read too: a distribution's entry points (its ``pytest11`` plugin may be another
    module now) and the text of ``.pth`` files (the paths and imports they add).
    """
    names: list[str] = []
    for directory in _site_dirs():
        try:
            with os.scandir(directory) as entries:
                names.extend(
                    f"{directory}/{e.name}{_contents_tag(e.path)}"
                    for e in entries
                    if e.name.endswith(_DIST_SUFFIXES)
                )
        except OSError:
            continue
    names.sort()
    return xxhash.xxh3_64_hexdigest("\n".join(names).encode()), names


def _contents_tag(path: str) -> str:
    """`` entry points <hash>`` of a distribution that declares entry points, `` <hash>``
    of a ``.pth`` or ``.egg-link`` file's text; empty for anything else."""
    if path.endswith(".dist-info"):
        label, path = ENTRY_POINTS, os.path.join(path, "entry_points.txt")
    else:
        label = ""
    try:
        with open(path, "rb") as file:
            return f"{label} {xxhash.xxh3_64_hexdigest(file.read())[:12]}"
    except OSError:  # no entry points, or a directory (.egg-info)
        return ""

"""``reks affected`` and ``reks store --info`` behave in a shell pipeline, and the store's
last session is told in words and local time, not epoch seconds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

_MAIN = "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))"


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "test_many.py").write_text(
        "import pytest\n\n\n@pytest.mark.parametrize('i', range(1500))\n"
        "def test_a_number_with_a_name_long_enough_to_fill_the_pipe_buffer_quickly(i):\n"
        "    assert i >= 0\n"
    )
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--reks"],
        cwd=root,
        check=True,
        capture_output=True,
    )
    (root / "test_many.py").write_text(
        (root / "test_many.py").read_text().replace("i >= 0", "i > -1")
    )
    return root


def test_a_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    root = _project(tmp_path)
    reader = subprocess.Popen(
        [sys.executable, "-c", _MAIN, "affected", "--json"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    assert reader.stdout.read(1) == b"{"  # `| head -c 1`
    reader.stdout.close()
    stderr = reader.stderr.read().decode()
    assert reader.wait() == 0
    assert "BrokenPipeError" not in stderr and "Traceback" not in stderr

    info = subprocess.run(
        [sys.executable, "-c", _MAIN, "store", "--info"], cwd=root, capture_output=True, text=True
    )
    last = next(line for line in info.stdout.splitlines() if line.startswith("last session:"))
    assert re.search(r"#\d+ \(\w+\), \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", last), last
    assert not re.search(r"\d{10}\.\d+", last)  # no raw epoch seconds

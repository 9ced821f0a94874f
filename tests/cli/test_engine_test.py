"""``reks engine-test`` end to end: reports written, deterministic, bad arguments refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.cli import main


def test_engine_test_writes_deterministic_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["engine-test", "--generator", "refusals", "--engines", "rope,reks", "--bound", "1"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b"), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "checks" in out and "failure groups" in out
    for name in ("engine-test.json", "engine-test.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    report = json.loads((tmp_path / "a" / "engine-test.json").read_text())
    assert report["arguments"]["engines"] == ["rope", "reks"]
    assert report["summary"]["cases"] == 10
    groups = report["groups"]
    # rope renames to the invalid identifier `1x`; reks refuses it.
    assert any(
        g["engine"] == "rope" and g["oracle"] == "refusal"
        and g["signature"] == [["violation", "rename-to-not-identifier"]]
        for g in groups
    )  # fmt: skip
    assert not any(
        g["engine"] == "reks" and "rename-to" in json.dumps(g["signature"]) for g in groups
    )
    markdown = (tmp_path / "a" / "engine-test.md").read_text()
    assert "# reks engine-test report" in markdown and "```diff" in markdown


def test_write_known_failures(tmp_path: Path) -> None:
    path = tmp_path / "known.json"
    args = ["engine-test", "--generator", "classes", "--engines", "rope", "--no-inverse"]
    assert main([*args, "--out", str(tmp_path / "r"), "--write-known-failures", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["version"] == 1 and data["shapes"]
    assert any("use:super-call" in shape["features"] for shape in data["shapes"])


@pytest.mark.parametrize(
    "bad",
    [
        ["--engines", "nope"],
        ["--generator", "nope"],
        ["--refactoring", "nope"],
        ["--bound", "0"],
    ],
)
def test_bad_arguments_exit_2_and_write_nothing(tmp_path: Path, bad: list[str]) -> None:
    out = tmp_path / "r"
    assert main(["engine-test", *bad, "--out", str(out)]) == 2
    assert not out.exists()


def test_distinct_failures_are_the_headline_and_signature_groups_the_detail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rope's field rename fails in six signature groups but three faults (the use it
    leaves unrenamed: in a lambda, in an untyped parameter's body, in ``getattr``): the
    papers count the faults."""
    args = ["engine-test", "--generator", "fields", "--engines", "rope", "--no-inverse"]
    assert main([*args, "--bound", "1", "--out", str(tmp_path)]) == 0
    assert "3 distinct failures (6 failure groups)" in capsys.readouterr().out
    report = json.loads((tmp_path / "engine-test.json").read_text())
    assert report["summary"]["distinct_failures"] == 3
    assert {tuple(f["code"]) for f in report["failures"]} == {
        ("get = lambda o: o.f",),
        ("return o.f",),
        ('return getattr(self, "f")',),
    }
    numbers = list(range(1, len(report["groups"]) + 1))
    assert sorted(n for f in report["failures"] for n in f["groups"]) == numbers
    for number, group in enumerate(report["groups"], 1):
        assert all(number in report["failures"][f - 1]["groups"] for f in group["failures"])
    markdown = (tmp_path / "engine-test.md").read_text()
    assert "3 distinct failures (6 failure groups)" in markdown
    assert markdown.index("## Distinct failures") < markdown.index("## Failure groups")
    assert "| 1 | rope | rename | fields |" in markdown

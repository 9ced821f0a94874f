"""Data files a parametrize generator reads while its test file is collected: a test depends
on the files opened before its parameters were produced, not on every file the generator
read (jmespath's compliance tests read a dozen JSON files, one after the other)."""

from __future__ import annotations

import json

import pytest

from .helpers import run, write

pytest_plugins = ["pytester"]

_PER_FILE = """
import json
import pathlib

import pytest

HERE = pathlib.Path(__file__).parent


def cases():
    for name in ("a", "b"):
        with open(HERE / "data" / f"{name}.json") as fh:
            for key, value in json.load(fh).items():
                yield pytest.param(value, id=f"{name}-{key}")


@pytest.mark.parametrize("value", cases())
def test_small(value):
    assert value < 10
"""


def _data(pytester: pytest.Pytester, name: str, cases: dict[str, int]) -> None:
    write(pytester, f"data/{name}.json", json.dumps(cases))


@pytest.fixture
def per_file(pytester: pytest.Pytester) -> pytest.Pytester:
    _data(pytester, "a", {"one": 1})
    _data(pytester, "b", {"two": 2})
    write(pytester, "test_cases.py", _PER_FILE)
    return pytester


def test_a_changed_data_file_selects_the_cases_read_after_it_was_opened(
    per_file: pytest.Pytester,
) -> None:
    assert run(per_file) == {"test_small[a-one]", "test_small[b-two]"}
    _data(per_file, "b", {"two": 20})
    assert run(per_file) == {"test_small[b-two]"}
    _data(per_file, "b", {"two": 2})
    assert run(per_file) == {"test_small[b-two]"}  # it failed last time
    _data(per_file, "a", {"one": 11})
    # b's cases were produced after a.json was opened: they may hold what it held.
    assert run(per_file) == {"test_small[a-one]", "test_small[b-two]"}


def test_cases_produced_after_every_file_was_read_depend_on_all_of_them(
    pytester: pytest.Pytester,
) -> None:
    _data(pytester, "a", {"one": 1})
    _data(pytester, "b", {"two": 2})
    write(
        pytester,
        "test_cases.py",
        _PER_FILE.replace(
            "def cases():\n    for name",
            "def cases():\n    yield from list(_read())\n\n\ndef _read():\n    for name",
        ),
    )
    assert run(pytester) == {"test_small[a-one]", "test_small[b-two]"}
    _data(pytester, "b", {"two": 20})
    assert run(pytester) == {"test_small[a-one]", "test_small[b-two]"}


def test_a_parameter_filled_after_it_was_produced_depends_on_what_filled_it(
    pytester: pytest.Pytester,
) -> None:
    _data(pytester, "a", {"v": 1})
    _data(pytester, "b", {"v": 2})
    write(
        pytester,
        "test_filled.py",
        """
        import json
        import pathlib

        import pytest

        HERE = pathlib.Path(__file__).parent


        def cases():
            shared = {}
            yield pytest.param(shared, id="shared")
            with open(HERE / "data" / "a.json") as fh:
                yield pytest.param(json.load(fh), id="a")
            with open(HERE / "data" / "b.json") as fh:
                shared.update(json.load(fh))


        @pytest.mark.parametrize("case", cases())
        def test_small(case):
            assert case.get("v", 0) < 10
        """,
    )
    assert run(pytester) == {"test_small[shared]", "test_small[a]"}
    _data(pytester, "b", {"v": 20})
    assert run(pytester) == {"test_small[shared]", "test_small[a]"}

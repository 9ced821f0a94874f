"""The analysis's state is saved without writing again the entries it kept as they were."""

from __future__ import annotations

from pathlib import Path

from lsp_server.rts.store import DependencyStore


def test_only_entries_that_changed_are_written_again(tmp_path: Path) -> None:
    with DependencyStore(tmp_path) as store:
        store.save_extreme_verdicts("ctx", {"m.py::f": {"n": 1}, "m.py::g": {"n": 1}})
        # g's entry claims to be unchanged: what is stored for it stays; f is replaced; h
        # is new (so written although listed); entries missing now are removed.
        store.save_extreme_verdicts(
            "ctx",
            {"m.py::f": {"n": 2}, "m.py::g": {"n": 99}, "m.py::h": {"n": 3}},
            {"m.py::g", "m.py::h"},
        )
        assert store.extreme_verdicts("ctx") == {
            "m.py::f": {"n": 2},
            "m.py::g": {"n": 1},
            "m.py::h": {"n": 3},
        }
        store.save_extreme_verdicts("ctx", {"m.py::h": {"n": 3}}, {"m.py::h"})
        assert store.extreme_verdicts("ctx") == {"m.py::h": {"n": 3}}
        # Under another context nothing is unchanged: everything is written afresh.
        store.save_extreme_verdicts("other", {"m.py::f": {"n": 4}}, {"m.py::f"})
        assert store.extreme_verdicts("other") == {"m.py::f": {"n": 4}}
        assert store.extreme_verdicts("ctx") == {}

"""A dict's snapshot is copied again only after the dict changed, and every change is seen
(``rts.dict_versions``): the filled-containers rule compares a hundred namespaces around
every test with it instead of copying each."""

from __future__ import annotations

import collections
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest

from lsp_server.rts.dict_versions import SUPPORTED, DictSnapshot, SnapshotGroup, dict_version

CPYTHON_WITH_TAGS = sys.implementation.name == "cpython" and sys.version_info < (3, 14)

CHANGES: dict[str, Callable[[dict[str, Any]], object]] = {
    "added": lambda d: d.__setitem__("added", 1),
    "rebound": lambda d: d.__setitem__("k", object()),
    "deleted": lambda d: d.__delitem__("k"),
    "popped": lambda d: d.pop("k"),
    "popitem": lambda d: d.popitem(),
    "updated": lambda d: d.update(k=[]),
    "setdefault": lambda d: d.setdefault("other", 2),
    "cleared": lambda d: d.clear(),
    "global write": lambda d: exec("global k\nk = 3", d),
}


def test_the_tags_are_trusted_on_cpython_up_to_3_13() -> None:
    assert SUPPORTED is CPYTHON_WITH_TAGS


@pytest.mark.parametrize("change", CHANGES.values(), ids=list(CHANGES))
def test_each_kind_of_change_is_seen_and_copied_again(
    change: Callable[[dict[str, Any]], object],
) -> None:
    namespace: dict[str, Any] = {"k": object(), "j": 1}
    snapshot = DictSnapshot(namespace)
    assert snapshot.entries == namespace
    change(namespace)
    assert not snapshot.unchanged()
    snapshot.take()
    assert snapshot.entries == namespace
    assert snapshot.unchanged() is SUPPORTED


@pytest.mark.skipif(not SUPPORTED, reason="no version tag on this interpreter")
def test_an_unchanged_dict_is_not_copied_again() -> None:
    registry = {str(i): [i] for i in range(1000)}
    snapshot = DictSnapshot(registry)
    first = snapshot.entries
    registry["7"].append(8)  # a held list grows: the dict itself is unchanged
    registry["3"] = registry["3"]  # the same object again: no change
    snapshot.take()
    assert snapshot.unchanged()
    assert snapshot.entries is first


@pytest.mark.skipif(not SUPPORTED, reason="no version tag on this interpreter")
def test_a_class_attribute_set_or_deleted_and_a_module_global_are_changes() -> None:
    class Settings:
        mode = "fast"

    snapshot = DictSnapshot(vars(Settings))
    Settings.mode = "slow"
    assert not snapshot.unchanged()
    snapshot.take()
    assert snapshot.entries["mode"] == "slow"
    del Settings.mode
    assert not snapshot.unchanged()

    module = types.ModuleType("settings")
    exec("def choose():\n    global mode\n    mode = 'x'", vars(module))
    snapshot = DictSnapshot(vars(module))
    module.choose()
    assert not snapshot.unchanged()


def test_a_dict_subclass_has_no_tag_and_is_copied_every_time() -> None:
    ordered = collections.OrderedDict(a=1)
    assert dict_version(ordered) is None
    snapshot = DictSnapshot(ordered)
    first = snapshot.entries
    snapshot.take()
    assert not snapshot.unchanged()
    assert snapshot.entries is not first
    assert snapshot.entries == ordered


def test_a_group_copies_only_the_snapshots_whose_dict_changed_and_tells_which() -> None:
    namespaces = [{"k": i} for i in range(5)]
    ordered = collections.OrderedDict(a=1)  # no tag: changed every time, as alone
    group = SnapshotGroup()
    for namespace in (*namespaces, ordered):
        group.add(DictSnapshot(namespace))
    kept = [s.entries for s in group.snapshots]
    assert group.changed() == ([] if SUPPORTED else [0, 1, 2, 3, 4]) + [5]
    namespaces[3]["k"] = object()
    namespaces[1]["new"] = 1
    assert group.changed() == ([1, 3] if SUPPORTED else [0, 1, 2, 3, 4]) + [5]
    group.take()
    assert [s.entries for s in group.snapshots] == [*namespaces, ordered]
    if SUPPORTED:
        same = [s.entries is k for s, k in zip(group.snapshots, kept, strict=True)]
        assert same == [True, False, True, False, True, False]
    assert group.changed() == ([] if SUPPORTED else [0, 1, 2, 3, 4]) + [5]


@pytest.mark.skipif(not SUPPORTED, reason="no version tag on this interpreter")
def test_a_group_agrees_with_each_snapshot_alone_on_every_kind_of_change() -> None:
    namespaces: list[dict[str, Any]] = [{"k": object(), "j": 1} for _ in CHANGES]
    group = SnapshotGroup()
    for namespace in namespaces:
        group.add(DictSnapshot(namespace))
    alone = [DictSnapshot(namespace) for namespace in namespaces]
    for place, change in enumerate(CHANGES.values()):
        change(namespaces[place])
        assert group.changed() == list(range(place + 1))
        assert [not s.unchanged() for s in alone] == [i <= place for i in range(len(CHANGES))]

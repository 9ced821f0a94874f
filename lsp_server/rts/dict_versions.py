"""Whether a dict changed since a moment, without copying it: CPython's version tag.

``rts.filled_containers`` compares the namespaces of the project's modules and classes, and
the dicts bound in them, before and after every test. Copying each of them around every test
cost a fifth of the recording's own time on marshmallow (a hundred namespaces, a registry
growing with every schema class a test defines). CPython keeps in every dict a 64-bit
version tag (PEP 509, ``ma_version_tag``) that it sets to a new value from one interpreter-
wide counter on every change of the dict: an entry added, rebound to another object or
removed, the dict cleared. Rebinding an entry to the object it already holds leaves it. So
an unchanged tag means unchanged entries, and a copy taken when the tag was read is still
exact: it is taken again only after a change.

The tag is not reachable from Python: it is read from the dict's memory with ``ctypes``,
at the offset the struct has on 3.8-3.13 (after the object header and ``ma_used``). This is
trusted only after checking it on this interpreter (``ma_used`` read at its offset equals
``len`` for dicts of several sizes, and the tag moves on each kind of change and not
without one); anywhere else (3.14 stopped updating the tag, PyPy, another layout) there is
no tag and the caller copies as before.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import types
import weakref
from collections.abc import Callable, Mapping
from typing import Any

_POINTER = ctypes.sizeof(ctypes.c_void_p)
_USED_OFFSET = 2 * _POINTER  # PyObject_HEAD: reference count, type
_TAG_OFFSET = _USED_OFFSET + ctypes.sizeof(ctypes.c_ssize_t)
_WORD = ctypes.sizeof(ctypes.c_uint64)
# Every 64-bit word of the process, by its address over ``_WORD`` less one (the pointer's
# base is the first word past NULL, which ctypes refuses to index): ``map`` over it reads
# the tags of a hundred dicts in one C loop (``SnapshotGroup``), not a Python call each.
_WORDS = ctypes.cast(_WORD, ctypes.POINTER(ctypes.c_uint64))


class _Probe:
    attribute = 0


def _tag_of(mapping: dict[Any, Any]) -> int:
    return ctypes.c_uint64.from_address(id(mapping) + _TAG_OFFSET).value


def _changes() -> list[Callable[[dict[Any, Any]], object]]:
    """One of each kind of change a dict can have (each keeps the entry ``"k"``)."""
    return [
        lambda d: d.__setitem__("new", 1),
        lambda d: d.__setitem__("k", object()),
        lambda d: d.pop("extra"),
        lambda d: d.__delitem__("extra"),
        lambda d: d.update(extra=2),
        lambda d: d.setdefault("other", 3),
        lambda d: d.popitem(),
        lambda d: exec("global k; k = 4", d),  # STORE_GLOBAL, a module's own writes
    ]


def _tag_index(mapping: dict[Any, Any]) -> int:
    """Where ``_WORDS`` holds ``mapping``'s tag."""
    return (id(mapping) + _TAG_OFFSET) // _WORD - 1


def _layout_holds() -> bool:
    for size in (0, 1, 5, 40):
        mapping = {str(i): i for i in range(size)}
        if ctypes.c_ssize_t.from_address(id(mapping) + _USED_OFFSET).value != size:
            return False
        address = id(mapping) + _TAG_OFFSET
        if address % _WORD or _WORDS[_tag_index(mapping)] != _tag_of(mapping):
            return False
    return True


def _tags_move() -> bool:
    for change in _changes():
        mapping: dict[Any, Any] = {"k": 0, "extra": 1}
        same = mapping["k"]
        before = _tag_of(mapping)
        mapping["k"] = same  # the same object: not a change
        if _tag_of(mapping) != before:
            return False
        change(mapping)
        if _tag_of(mapping) == before:
            return False
    namespace = _class_dict(_Probe)
    before = _tag_of(namespace)
    _Probe.attribute = 1  # type.__setattr__, which also clears the type's caches
    moved = _tag_of(namespace) != before
    cleared = {"k": 0}
    before = _tag_of(cleared)
    cleared.clear()
    return moved and _tag_of(cleared) != before


def _class_dict(cls: type) -> dict[str, Any]:
    """The dict behind a class's read-only ``vars`` (a ``mappingproxy``)."""
    (namespace,) = gc.get_referents(vars(cls))
    return namespace


def _supported() -> bool:
    if sys.implementation.name != "cpython" or not (3, 8) <= sys.version_info[:2] <= (3, 13):
        return False
    try:
        return _layout_holds() and _tags_move()
    except Exception:  # any surprise means: do not trust the tag
        return False


SUPPORTED: bool = _supported()


class DictVersion:
    """The version tag of one dict, read live; the dict is kept alive with it."""

    __slots__ = ("_dict", "_tag", "index")

    def __init__(self, mapping: dict[Any, Any]) -> None:
        self._dict = mapping
        self._tag = ctypes.c_uint64.from_address(id(mapping) + _TAG_OFFSET)
        self.index = _tag_index(mapping)  # of the tag in ``_WORDS``

    @property
    def value(self) -> int:
        return self._tag.value


def dict_version(mapping: Mapping[Any, Any]) -> DictVersion | None:
    """The live version tag of ``mapping`` (a dict, or a class's ``mappingproxy``); None
    where this interpreter has none to trust or ``mapping`` is no plain dict."""
    if not SUPPORTED:
        return None
    if type(mapping) is types.MappingProxyType:
        referents = gc.get_referents(mapping)
        if len(referents) != 1:
            return None
        mapping = referents[0]
    if type(mapping) is not dict:  # a subclass may keep its entries elsewhere
        return None
    return DictVersion(mapping)


class _Weak(weakref.ref):
    """A snapshot's hold on a value it must not keep alive (no value of the project's is
    one: a snapshot tells them apart by type)."""

    __slots__ = ()


def _held(value: object) -> object:
    """What a snapshot keeps of ``value``: a weak reference where it takes one, else the
    value (numbers, strings, tuples: kept alive as before)."""
    return _Weak(value) if type(value).__weakrefoffset__ else value


def same(held: object, value: object) -> bool:
    """Whether ``value`` is the object a snapshot ``held``: a weakly held one that was
    collected is another object, whatever address the new one got."""
    if type(held) is _Weak:
        return (found := held()) is not None and found is value
    return held is value


class DictSnapshot:
    """The entries of a dict (or a class's namespace) as of the last ``take``: copied again
    only when its version tag says it changed since (every time where it has none).

    ``weak``: values are held by weak reference where they take one (``same`` compares
    them): the snapshot of a cache taken as a test starts must not keep alive what the
    test evicts and then asserts collected (dateutil's ``test_tzoffset_weakref``)."""

    __slots__ = ("_seen", "_version", "_weak", "entries", "mapping")

    def __init__(self, mapping: Mapping[Any, Any], *, weak: bool = False) -> None:
        self.mapping = mapping
        self.entries: dict[Any, Any] = {}
        self._version = dict_version(mapping)
        self._seen = -1
        self._weak = weak
        self.take()

    def take(self) -> None:
        version = self._version
        if version is not None:
            now = version.value
            if now == self._seen:
                return
            self._seen = now  # read before the copy: a change in between is seen next time
        self._copy()

    def retake(self, seen: int) -> None:
        """Copy the entries again, the tag having been read as ``seen`` just before."""
        self._seen = seen
        self._copy()

    def _copy(self) -> None:
        mapping = self.mapping
        if self._weak:
            self.entries = dict(zip(mapping.keys(), map(_held, mapping.values()), strict=True))
        else:
            self.entries = dict(mapping)

    def unchanged(self) -> bool:
        """Whether the dict is surely as ``entries`` holds it (false where not known)."""
        version = self._version
        return version is not None and version.value == self._seen


class SnapshotGroup:
    """Snapshots taken and checked together (``rts.filled_containers``: a hundred namespaces
    around every test): their tags are read in one C loop and compared as one list, and
    only the snapshots whose tag moved are looked at in Python. A snapshot without a tag
    counts as changed every time, as it does alone."""

    def __init__(self) -> None:
        self.snapshots: list[DictSnapshot] = []
        self._tagged: list[int] = []  # positions in ``snapshots`` of those with a tag
        self._indices: list[int] = []  # of their tags in ``_WORDS``
        self._seen: list[int] = []  # their tags as of the last copy
        self._untagged: list[int] = []

    def add(self, snapshot: DictSnapshot) -> None:
        """Add ``snapshot``, taken just now."""
        version = snapshot._version
        if version is None:
            self._untagged.append(len(self.snapshots))
        else:
            self._tagged.append(len(self.snapshots))
            self._indices.append(version.index)
            self._seen.append(snapshot._seen)
        self.snapshots.append(snapshot)

    def take(self) -> None:
        """``take`` on every snapshot: copy those whose dict changed since."""
        tags = list(map(_WORDS.__getitem__, self._indices))
        if tags != self._seen:
            snapshots, tagged = self.snapshots, self._tagged
            for place, now, then in zip(tagged, tags, self._seen, strict=True):
                if now != then:  # read before the copy: a change in between is seen next time
                    snapshots[place].retake(now)
            self._seen = tags
        for place in self._untagged:
            self.snapshots[place].take()

    def changed(self) -> list[int]:
        """The positions of the snapshots not surely ``unchanged``, in the order added."""
        tags = list(map(_WORDS.__getitem__, self._indices))
        if tags == self._seen:
            return list(self._untagged)
        pairs = zip(self._tagged, tags, self._seen, strict=True)
        moved = [place for place, now, then in pairs if now != then]
        return sorted(moved + self._untagged)

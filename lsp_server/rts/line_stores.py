"""Line-number names that code only stores, which read no line.

An exception or a node keeping where something is (tomli's ``TOMLDecodeError.__init__``:
``self.lineno = lineno``, a line of the parsed document) spells ``lineno`` as an attribute
store: the name is a binding read (a property of that name may take the store,
``reads.code_reads``), but nothing sees where code sits. Only a load of such a name may
show a line of code (an exception's, a log record's, a node's). So each code object that
spells one of ``STORED_LINE_NAMES`` marks it, beside the name: ``LINE_STORED`` where it
only stores it, ``LINE_LOADED`` where it reads it otherwise (loaded, a string, a global).

A name counts as a line read (``line_names_read``) where its ``LINE_LOADED`` twin is among
the names a test read, or where no ``LINE_STORED`` twin is: every source of a name that may
be a load marks it so (``loaded_marks``: a module's statements, the pairs followed from
them, names looked up as code ran), and a name no source marked counts as before. Not a
frame's ``f_lineno``: storing it jumps to a line, which depends on where code sits.
"""

from __future__ import annotations

from collections.abc import Set

from lsp_server.rts.lookups import LINE_READS

STORED_LINE_NAMES = frozenset(["lineno", "end_lineno", "firstlineno"])
"""Line-number attributes that code stores without reading a line."""
LINE_STORED = "<set>"
"""A name prefixed so: some code spelled it only as an attribute store."""
LINE_LOADED = "<get>"
"""A name prefixed so: some code read it other than by storing it."""
_LOADED_TWINS = {LINE_LOADED + name: name for name in STORED_LINE_NAMES}


def line_store_marks(spelled: Set[str], stored_only: Set[str]) -> frozenset[str]:
    """The twins of the ``STORED_LINE_NAMES`` a code object spells (``spelled``), given
    those it only stores as attributes (``stored_only``)."""
    found = STORED_LINE_NAMES.intersection(spelled)
    if not found:
        return frozenset()
    return frozenset((LINE_STORED if name in stored_only else LINE_LOADED) + name for name in found)


def loaded_marks(names: Set[str]) -> frozenset[str]:
    """The ``LINE_LOADED`` twins of the names of ``names`` that a source reading them
    (not by storing) must add."""
    found = STORED_LINE_NAMES.intersection(names)
    return frozenset(LINE_LOADED + name for name in found) if found else frozenset()


def twins_of(names: Set[str]) -> frozenset[str]:
    """Both twins of each of the ``STORED_LINE_NAMES`` among ``names``."""
    found = STORED_LINE_NAMES.intersection(names)
    return frozenset(mark + name for name in found for mark in (LINE_STORED, LINE_LOADED))


def line_names_read(names: Set[str]) -> set[str]:
    """The names of ``lookups.LINE_READS`` among ``names`` that read a line: loaded
    somewhere, or never marked as only stored."""
    read = {_LOADED_TWINS[mark] for mark in _LOADED_TWINS.keys() & names}
    read.update(name for name in LINE_READS.intersection(names) if LINE_STORED + name not in names)
    return read

"""What a ``getattr``/``hasattr`` by a computed name looked in, told as the call runs.

A method looking up attributes of its own instance by a computed name (``getattr(self,
head + tail)``) reads, by its syntax, any member of the instance's classes
(``lookups.ATTRIBUTE_LOOKUP``): the attribution reads it so when the name was not told
(``Attribution._run_time_reads``). ``self`` may be a module all the same
(``Getter.find(module, "s", "ep")``): the lookup then reads any global of that module, a new
``sep`` among them, which no member lookup sees.

So ``rts.runtime_lookups`` asks, at each such call whose name it cannot tell, what the call
looks in: 3.12's CALL event hands over the first argument; before, the first argument is
read off the caller's frame when a fast local no instruction before the call can rebind
pushed it (``receiver_sources``). An object that is no namespace
(``instance_owners.holds_namespace``) has only its own attributes and its classes' members
to find: the call reads
``MEMBER_LOOKUP`` and stays watched, for a later call may be handed a module. Anything
else, or a receiver not told, reads every name, and ``NAMESPACE_LOOKUP`` keeps the syntax
from narrowing that back to members (``settle_untold``); so does code whose sites were
never told (a generator under 3.11's markers, code run while another profile hook was set).
Not seen: a module handed to a site given up on after ``runtime_lookups.MAX_CALLS`` calls
in a test, all on objects that were no namespace.
"""

from __future__ import annotations

import dis
from collections.abc import Set
from types import CodeType, FrameType

from lsp_server.rts.instance_owners import holds_namespace
from lsp_server.rts.kept_code_analyses import kept_by_content
from lsp_server.rts.lookup_sites import call_site
from lsp_server.rts.reads import EVERY_NAME

MEMBER_LOOKUP = "<member lookup>"
"""Read by code whose ``getattr``/``hasattr`` looked up an untold name on an object that is
no namespace: at most any member of its classes."""
NAMESPACE_LOOKUP = "<namespace lookup>"
"""Read by code whose ``getattr``/``hasattr`` looked up an untold name on a namespace (a
module, a function...) or on an object not told: any name, whatever the syntax says."""

ATTRIBUTE_FUNCTIONS = frozenset([getattr, hasattr, setattr, delattr])
"""The lookup functions of an object's attributes by name."""
READERS = frozenset([getattr, hasattr])
"""Those whose receiver is read: ``setattr``/``delattr`` store (what they meet is a class's
descriptor at most, as the syntax says)."""

_FAST_LOADS = frozenset(["LOAD_FAST", "LOAD_FAST_CHECK"])
# 3.13 stores two locals at once: ``argval`` a tuple of names.
_REBINDS = frozenset(["STORE_FAST", "DELETE_FAST", "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST"])


def record_receiver(
    frame: FrameType,
    code: CodeType,
    offset: int,
    function: object,
    receiver: object,
    seen: bool,
    names: set[str],
) -> bool:
    """Record an untold name looked up by ``function`` (``ATTRIBUTE_FUNCTIONS``) at
    ``offset`` of ``code`` (running in ``frame``) on ``receiver`` (``seen``: handed over by
    the call event; else read off the frame); False when the code reads every name from
    now on."""
    if function not in READERS:  # a store: members at most, given up on as before
        names.update((EVERY_NAME, MEMBER_LOOKUP))
        return False
    if not seen:
        source = receiver_sources(code).get(offset)
        if source is None or source not in frame.f_locals:
            names.update((EVERY_NAME, NAMESPACE_LOOKUP))
            return False
        receiver = frame.f_locals[source]
    if holds_namespace(receiver):
        names.update((EVERY_NAME, NAMESPACE_LOOKUP))
        return False
    names.add(MEMBER_LOOKUP)
    return True


def settle_untold(looked_up: Set[str], untold: str | None) -> set[str]:
    """The names code read at its lookup sites, with ``untold`` (the syntax's kind: any
    member of its instance's classes, by a prefix; None for code whose syntax reads any
    name) in place of what the sites could not tell but the receiver (see above)."""
    found = set(looked_up) - {MEMBER_LOOKUP, NAMESPACE_LOOKUP}
    if MEMBER_LOOKUP not in looked_up:
        return found  # no site told (a generator before 3.12): any name stays
    found.add(EVERY_NAME if untold is None else untold)
    if untold is not None and NAMESPACE_LOOKUP not in looked_up:
        # Given up on a hot loop (``runtime_lookups.MAX_CALLS``) after members only: the
        # syntax's kind, as before receivers were told.
        found.discard(EVERY_NAME)
    return found


@kept_by_content
def receiver_sources(code: CodeType) -> dict[int, str]:
    """By the offsets ``lookup_sites`` keys a call by: the fast local that pushed the first
    argument of each ``getattr``/``hasattr`` call of ``code`` spelled by its global name,
    when no instruction between the push and the call stores or deletes that local."""
    instructions = list(dis.get_instructions(code))
    found: dict[int, str] = {}
    for index, ins in enumerate(instructions[:-1]):
        if ins.opname not in ("LOAD_GLOBAL", "LOAD_NAME") or ins.argval not in _READER_NAMES:
            continue
        first = instructions[index + 1]
        site = call_site(instructions, index)
        if first.opname not in _FAST_LOADS or site is None:
            continue
        call = max(site[1])
        between = (i for i in instructions[index + 2 :] if i.offset <= call)
        if any(i.opname in _REBINDS and first.argval in _names(i.argval) for i in between):
            continue
        found.update(dict.fromkeys(site[1], str(first.argval)))
    return found


_READER_NAMES = frozenset(f.__name__ for f in READERS)


def _names(argval: object) -> tuple[object, ...]:
    return argval if isinstance(argval, tuple) else (argval,)

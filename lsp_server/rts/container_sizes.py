"""What decided which entries a test left in a module-level dict: what it ran up to its last
store into it, for the later tests that read the dict's size or ask whether an entry is
there (``rts.filled_containers``).

``len(_CACHE)`` sees which entries are there, not their values. In a full run after an
edit it sees other entries only where some earlier test added or dropped others, which
only code that earlier test ran *before* its change can decide: jmespath's parser stores
each new expression (``self._CACHE[expression] = parsed``), then checks
``len(self._CACHE) > self._MAX_SIZE``, and every later test taking the size depended on
the whole run of every test that parsed an expression, the interpreting after the store
included (``f801dd1`` changed ``avg`` and selected 370 tests where testmon selected 2).

So each store into a watched dict keeps where the test had got to (``rts.keyed_reads``): the
sets holding what it ran so far, with their sizes. Once the test ends, the code objects
first seen after the last store (in a set past its size then, in none before it) did not
decide the entries, and the test counts, for the entries it added or dropped, with the rest
of what it ran (what was merged into its sets when it ended, shared fixtures and earlier
tests' fillers, stays). That holds only where every change of the dict came from a watched
store: a test that ran code changing it any other way (a method, ``del``, an alias, any use
not told), code not watched yet, a store past the cap on events, or on Python before 3.12,
counts with its whole run, as before. A dict reached under another name (``from m import
_CACHE as C``) is not told, as for reads (README, Limits).
"""

from __future__ import annotations

from itertools import islice

from lsp_server.rts.tracing import CodeSet, RanSoFar


def ran_after(so_far: RanSoFar) -> set[int]:
    """The code objects (by identity) first seen after ``so_far`` was taken: past its size
    then in some set, and in none of them before it."""
    before: set[int] = set()
    after: set[int] = set()
    for codes, size in so_far:
        keys = iter(codes)
        before.update(islice(keys, size))
        after.update(keys)
    return after - before


def ran_before(codes: CodeSet, later: set[int] | None) -> CodeSet:
    """What in ``codes`` ran before the moment ``later`` was found for (None: not told)."""
    if not later:
        return codes
    return {key: code for key, code in codes.items() if key not in later}

"""One diagnostics hub: each feature publishes its own sets, the server sends their union.

``textDocument/publishDiagnostics`` replaces a file's whole list, so features must not
publish by themselves: each gives the hub its diagnostics per URI, for one scope (a
workspace root), and the hub sends every URI whose union changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lsprotocol import types

PerUri = dict[str, list[types.Diagnostic]]
Publisher = Callable[[str, list[types.Diagnostic]], None]


class DiagnosticsHub:
    """Diagnostics by (feature, scope) and URI; ``publish`` sends one URI's union."""

    def __init__(self, publish: Publisher) -> None:
        self._publish = publish
        self._sets: dict[tuple[str, str], PerUri] = {}

    def replace(self, feature: str, scope: str, per_uri: PerUri) -> None:
        """``per_uri`` becomes the feature's whole set for ``scope``."""
        previous = self._sets.get((feature, scope), {})
        self._sets[(feature, scope)] = {u: list(d) for u, d in per_uri.items() if d}
        self._send(set(previous) | set(per_uri))

    def update(self, feature: str, scope: str, per_uri: PerUri, uris: Iterable[str]) -> None:
        """Replace the feature's diagnostics of ``uris`` only (others keep theirs)."""
        uris = set(uris) | set(per_uri)
        current = self._sets.setdefault((feature, scope), {})
        for uri in uris:
            found = per_uri.get(uri)
            if found:
                current[uri] = list(found)
            else:
                current.pop(uri, None)
        self._send(uris)

    def clear(self, scope: str) -> None:
        """Forget every feature's diagnostics of ``scope`` (a removed workspace folder)."""
        uris: set[str] = set()
        for key in [k for k in self._sets if k[1] == scope]:
            uris |= set(self._sets.pop(key))
        self._send(uris)

    def of(self, feature: str) -> PerUri:
        """The feature's diagnostics over every scope."""
        out: PerUri = {}
        for (name, _), per_uri in self._sets.items():
            if name == feature:
                for uri, diagnostics in per_uri.items():
                    out.setdefault(uri, []).extend(diagnostics)
        return out

    def union(self, uri: str) -> list[types.Diagnostic]:
        return [d for per_uri in self._sets.values() for d in per_uri.get(uri, [])]

    def _send(self, uris: Iterable[str]) -> None:
        for uri in sorted(uris):
            self._publish(uri, self.union(uri))

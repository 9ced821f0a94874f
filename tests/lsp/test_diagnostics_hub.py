"""The diagnostics hub: each feature's set per scope, the union sent per URI."""

from __future__ import annotations

from lsprotocol import types

from lsp_server.lsp.diagnostics import DiagnosticsHub


def _diagnostic(message: str) -> types.Diagnostic:
    start = types.Position(line=0, character=0)
    return types.Diagnostic(range=types.Range(start, start), message=message)


def _hub() -> tuple[DiagnosticsHub, list[tuple[str, list[str]]]]:
    sent: list[tuple[str, list[str]]] = []
    hub = DiagnosticsHub(lambda uri, ds: sent.append((uri, [d.message for d in ds])))
    return hub, sent


def test_features_publish_their_own_sets_and_the_client_gets_the_union() -> None:
    hub, sent = _hub()
    hub.replace("reks", "/p", {"file:///p/t.py": [_diagnostic("skipped")]})
    hub.replace("reneri", "/p", {"file:///p/t.py": [_diagnostic("weak oracle")]})
    assert sent[-1] == ("file:///p/t.py", ["skipped", "weak oracle"])
    # Replacing one feature's set leaves the other's alone, and clears what it dropped.
    hub.replace("reks", "/p", {})
    assert sent[-1] == ("file:///p/t.py", ["weak oracle"])


def test_update_replaces_only_the_named_files() -> None:
    hub, sent = _hub()
    hub.replace(
        "extreme",
        "/p",
        {"file:///p/a.py": [_diagnostic("a")], "file:///p/b.py": [_diagnostic("b")]},
    )
    sent.clear()
    hub.update("extreme", "/p", {}, ["file:///p/a.py"])
    assert sent == [("file:///p/a.py", [])]
    assert hub.of("extreme") == {"file:///p/b.py": hub.of("extreme")["file:///p/b.py"]}
    assert [d.message for d in hub.of("extreme")["file:///p/b.py"]] == ["b"]


def test_scopes_are_separate_and_clearing_one_empties_its_files() -> None:
    hub, sent = _hub()
    hub.replace("reks", "/p", {"file:///p/t.py": [_diagnostic("p")]})
    hub.replace("reks", "/q", {"file:///q/t.py": [_diagnostic("q")]})
    hub.clear("/p")
    assert sent[-1] == ("file:///p/t.py", [])
    assert list(hub.of("reks")) == ["file:///q/t.py"]

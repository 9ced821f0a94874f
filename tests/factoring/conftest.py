import pytest


@pytest.fixture(autouse=True)
def _only_our_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary projects' pytest runs load only the plugins they need (startup cost)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")

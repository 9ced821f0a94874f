"""The pytest plugin (entry point ``pytest11``).

Loaded in every pytest run, so it only adds options: without ``--reks``, ``--reks-all`` or
``--reks-dry-run`` nothing else is imported or registered. The work is done by
``lsp_server.rts.controller.ReksPlugin`` (with its deselector and recorder).
"""

from __future__ import annotations

import warnings
from collections.abc import Generator

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reks", "reks test selection")
    group.addoption(
        "--reks",
        action="store_true",
        help="run only tests affected by changes since the last run, and record dependencies",
    )
    group.addoption(
        "--reks-all",
        action="store_true",
        help="run every test and re-record dependencies (recreates a corrupt store)",
    )
    group.addoption(
        "--reks-dry-run",
        action="store_true",
        help="list the tests --reks would run and why, without running anything",
    )
    group.addoption(
        "--reks-verify-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --reks: after the selected tests, run tests REKS skipped after"
        " refactorings and no run verified yet, for up to SECONDS (recorded durations);"
        " default [tool.reks.rts] verify-budget, else 0 (off)",
    )
    group.addoption(
        "--reks-verify-skipped",
        action="store_true",
        help="with --reks: run only the tests REKS skipped that no run verified yet",
    )


_PACKAGE = __name__.partition(".")[0]


def import_compiled(config: pytest.Config) -> None:
    """Have reks's own modules imported as compiled, not rewritten: pytest marks every
    module of a plugin's distribution for assertion rewriting, and parses and compiles a
    rewritten module from source in each run where it cannot cache the result
    (``PYTHONDONTWRITEBYTECODE``, a read-only site-packages): a quarter of a second per
    session. reks's asserts are no test's. The marked names are pytest's private state:
    without them the modules are rewritten as before."""
    hook = getattr(config.pluginmanager, "rewrite_hook", None)
    marked = getattr(hook, "_must_rewrite", None)
    if not isinstance(marked, set) or _PACKAGE not in marked:
        return
    marked.discard(_PACKAGE)
    answers = getattr(hook, "_marked_for_rewrite_cache", None)
    if isinstance(answers, dict):
        for name in [n for n in answers if n.partition(".")[0] == _PACKAGE]:
            del answers[name]


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Generator[None, object, object]:
    opt = early_config.known_args_namespace
    recording = getattr(opt, "reks", False) or getattr(opt, "reks_all", False)
    if recording and not getattr(opt, "reks_dry_run", False):
        import_compiled(early_config)
        from lsp_server.rts.kept_code_analyses import KEPT
        from lsp_server.rts.recorder import start_import_tracing

        # Before the first code is analysed; saved once the last test is attributed.
        KEPT.open_session(early_config.rootpath.resolve())
        early_config.add_cleanup(KEPT.close_session)
        start_import_tracing(early_config)
    return (yield)


# pytest-asyncio warns in every run of a project that never configured its loop scope; a
# project gets it from reks's own dev tools without using asyncio, so a reks run leaves it
# out. The project's own warnings (and pytest-asyncio's others) are shown as usual.
_FOREIGN_CONFIGURATION_WARNING = r'The configuration option "asyncio_default_fixture_loop_scope"'


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """First: the filter must be in place before pytest-asyncio's ``pytest_configure``. It
    is added inside pytest's configured filters (which say "always" for deprecations)."""
    opt = config.option
    if not (opt.reks or opt.reks_all or opt.reks_dry_run):
        return
    warnings.filterwarnings(
        "ignore", message=_FOREIGN_CONFIGURATION_WARNING, category=pytest.PytestWarning
    )
    import_compiled(config)
    import sqlite3
    from pathlib import Path

    from lsp_server.rts.controller import ReksPlugin
    from lsp_server.rts.store import store_error, store_path

    try:
        plugin = ReksPlugin(config)
    except sqlite3.Error as exc:
        # A damaged page that the opening check did not reach: a usage error with the
        # advice for its class, not an INTERNALERROR traceback.
        path = store_path(Path(config.rootpath).resolve())
        raise pytest.UsageError(f"reks: {store_error(path, exc, writing=True)}") from exc
    config.pluginmanager.register(plugin, "reks-session")

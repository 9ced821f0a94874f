"""The project's own pytest options that a worker keeps (a pytest plugin).

A project's ``addopts`` (ini file, or ``PYTEST_ADDOPTS``) can change what its suite checks:
``--doctest-modules`` collects the doctests that may be all that checks a function (parse's
``with_pattern``), ``-W error`` fails a test on a warning, ``-p`` loads a plugin. The
workers and the on-disk runs keep them, as plain pytest does, and drop only what cannot
apply inside a worker, with its value: options of the plugins a worker turns off (xdist,
the cache provider, randomly, reks), coverage, stopping early (a worker runs the tests it
is handed, each on its own), debuggers and report files.

The filter runs where pytest has put the ``addopts`` into the arguments and before it
parses them (``pytest_load_initial_conftests``), so pytest finds the ini file itself. By
then pytest has parsed them early once, and plugins decide from that parse in the same
hook: pytest-cov starts coverage for a ``--cov`` there (its tracer beside reks's in every
test a worker runs, its data file saved at the end). So the filter wraps that hook, and the
early parse is made again without the options dropped before any plugin reads it.
"""

from __future__ import annotations

import copy

import pytest

_FLAGS = frozenset(
    [
        "-x",
        "--exitfirst",
        "--lf",
        "--last-failed",
        "--ff",
        "--failed-first",
        "--nf",
        "--new-first",
        "--sw",
        "--stepwise",
        "--sw-skip",
        "--stepwise-skip",
        "--sw-reset",
        "--stepwise-reset",
        "--cache-clear",
        "--cache-show",
        "--pdb",
        "--trace",
        "--no-cov",
        "--no-cov-on-fail",
        "--cov-append",
        "--cov-branch",
        "--looponfail",
        "-f",
        "--boxed",
        "--loadscope-reorder",
        "--no-loadscope-reorder",
        "--randomly-dont-reorganize",
        "--randomly-dont-reset-seed",
    ]
)
"""Options without a value, dropped."""

_VALUED = frozenset(
    [
        "-n",
        "--numprocesses",
        "--maxprocesses",
        "--dist",
        "-d",
        "--tx",
        "--rsyncdir",
        "--maxfail",
        "--max-worker-restart",
        "--cov-report",
        "--cov-config",
        "--cov-fail-under",
        "--cov-context",
        "--junitxml",
        "--junit-xml",
        "--junit-prefix",
        "--html",
        "--randomly-seed",
        "--last-failed-no-failures",
        "--lfnf",
        "--pdbcls",
        "--px",
        "--rsyncignore",
        "--testrunuid",
    ]
)
"""Options with a value (``--opt value`` or ``--opt=value``), dropped with it."""

_OPTIONAL_VALUE = frozenset(["--cov", "--cache-show"])
"""Options whose value is optional (``--cov``, ``--cov=pkg``, ``--cov pkg``)."""


def kept_options(args: list[str]) -> list[str]:
    """``args`` without the options a worker cannot apply (see the module docstring)."""
    kept: list[str] = []
    at = 0
    while at < len(args):
        arg = args[at]
        name = arg.split("=", 1)[0]
        at += 1
        if name.startswith("--reks") or (name in _FLAGS and "=" not in arg):
            continue
        if arg.startswith("-n") and len(arg) > 2:  # xdist's ``-n4``, ``-nauto``
            continue
        if name in _VALUED:
            at += 0 if "=" in arg else 1
            continue
        if name in _OPTIONAL_VALUE:
            if "=" not in arg and at < len(args) and not args[at].startswith("-"):
                at += 1
            continue
        kept.append(arg)
    return kept


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> object:
    kept = kept_options(args)
    if kept != args:
        args[:] = kept
        _parse_early_again(early_config, parser, args)
    return (yield)


def _parse_early_again(config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """The early parse of ``args`` (``known_args_namespace``) made again, as pytest makes
    it, from the defaults: an option left out is then unset, not kept from the first
    parse. pytest sets the conftest cut-off directory after that parse when no argument
    gives one: it is kept."""
    cut_off = config.known_args_namespace.confcutdir
    parsed = parser.parse_known_args(args, namespace=copy.copy(config.option))
    if parsed.confcutdir is None:
        parsed.confcutdir = cut_off
    config.known_args_namespace = parsed

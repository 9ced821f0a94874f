"""Which recorded tests a changed pytest option can affect.

The options part of the environment fingerprint (``controller.fingerprint_options``)
holds every option that may change a test's outcome. When only options changed (same
Python, same distributions), a rule per option says which tests still need to run;
an option without a sound rule reruns every test, and the reason names it:

- Reporting-only options (``REPORTING_ONLY``) change what pytest prints or writes
  after a test, never an outcome: no test.
- ``xfail_strict`` (``strict_xfail`` since pytest 9) is the default ``strict`` of
  ``xfail`` marks: only a test that had an ``xfail`` mark when it last ran can change
  (the recorder notes it as the ``NAMES`` unit ``XFAIL_MARK``; an
  imperative ``pytest.xfail()`` is not affected by it). A mark added since is a code
  change, which selects the test on its own.

Options deliberately left without a rule (they rerun every test): ``filterwarnings``
(Python's default filters ignore ``ResourceWarning`` and ``ImportWarning`` before any
hook can see them, so no record tells which tests emit one that a new ``error`` entry
would turn into a failure), ``log_level``/``log_cli_level``/``log_file_level`` (pytest
lowers the root logger's level to them for the whole run: ``caplog`` then sees other
records), and everything else not listed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

REPORTING_ONLY = frozenset(
    {
        "junit_suite_name",
        "junit_logging",
        "junit_log_passing_tests",
        "junit_duration_report",
        "junit_family",
        "truncation_limit_lines",
        "truncation_limit_chars",
        "verbosity_assertions",
        "verbosity_test_cases",
        "assertion_text_diff_style",
        "log_cli_format",
        "log_cli_date_format",
        "log_file",
        "log_file_mode",
        "log_file_format",
        "log_file_date_format",
        "minversion",
        "required_plugins",
        "faulthandler_timeout",
    }
)
"""ini options that only change reports (pytest's source: they reach formatters of
the terminal, the JUnit XML and the log file, never a test's own handlers), or stop the
whole session before any test runs (``minversion``, ``required_plugins``)."""

XFAIL_STRICT = frozenset({"xfail_strict", "strict_xfail"})

RECORDED_FOR_OPTIONS = "xfail marks"
"""What the recorder notes for these rules, part of the options fingerprint: a store
recorded by a reks that did not note it reruns everything once (``recorded`` changed)."""

XFAIL_MARK = "<mark xfail>"
"""The ``NAMES`` unit of a test that had an ``xfail`` mark when it last ran."""


@dataclass(frozen=True)
class OptionChange:
    """What changed options mean for recorded tests: ``every_test`` (why all of them
    run, naming the options) or the ``NAMES`` units whose tests run (``reads``)."""

    changed: tuple[str, ...]
    every_test: str | None
    reads: frozenset[str] = frozenset()

    @property
    def describe(self) -> str:
        return ", ".join(self.changed)


def _changed_options(before: Mapping[str, object], after: Mapping[str, object]) -> list[str]:
    """Names of the options that differ: ``ini.<key>`` for ini keys, else the option."""
    out: list[str] = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if key == "ini" and isinstance(old, dict) and isinstance(new, dict):
            out.extend(
                f"ini.{k}" for k in sorted(old.keys() | new.keys()) if old.get(k) != new.get(k)
            )
        elif old != new:
            out.append(key)
    return out


def judge_option_change(
    before: Mapping[str, object] | None, after: Mapping[str, object]
) -> OptionChange:
    """The rule for going from options ``before`` (None: not known) to ``after``."""
    if not before:
        return OptionChange((), "pytest options (the earlier ones are not known)")
    changed = _changed_options(before, after)
    reads: set[str] = set()
    unruled: list[str] = []
    for option in changed:
        key = option.removeprefix("ini.")
        if option.startswith("ini.") and key in REPORTING_ONLY:
            continue
        if option.startswith("ini.") and key in XFAIL_STRICT:
            reads.add(XFAIL_MARK)
            continue
        unruled.append(option)
    if unruled:
        return OptionChange(tuple(changed), _describe(unruled, before, after))
    return OptionChange(tuple(changed), None, frozenset(reads))


def _describe(options: list[str], before: Mapping[str, object], after: Mapping[str, object]) -> str:
    """``option ini.filterwarnings: [] -> ['error']`` for each option, joined."""
    parts = []
    for option in options:
        if option.startswith("ini."):  # the fingerprint keeps ini values as their repr
            ini = option.removeprefix("ini.")
            old, new = (_ini(side).get(ini) for side in (before, after))
        else:
            old, new = repr(before.get(option)), repr(after.get(option))
        parts.append(f"option {option}: {old} -> {new}")
    return "; ".join(parts)


def _ini(options: Mapping[str, object]) -> Mapping[str, object]:
    ini = options.get("ini")
    return ini if isinstance(ini, Mapping) else {}

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
- Warning filters (``filterwarnings``, pytest's ``-W``, Python's ``-W`` and
  ``PYTHONWARNINGS`` as ``sys.warnoptions``) act only on a warning that reaches them: the
  tests that ``WARNED`` (``rts.read_watch``: ignored warnings included, and a warning in a
  shared fixture's set-up, at collection or at an import counted for every test it can
  reach).
- ``strict_markers`` fails a mark not registered in ``markers`` where it is spelled: the
  access warns without it (``WARNED``), and a test with such a mark is noted
  (``UNREGISTERED_MARK``) even if a filter hid the warning.
- ``log_cli_level`` and ``log_file_level`` lower the root logger's level for the whole
  run (their handlers only write reports): the tests that read it (``ROOT_LEVEL_READ``:
  a logger without a level of its own deciding whether to log, ``caplog.set_level``).
- ``override_ini`` changes ini values, which are compared one by one: a key it names
  that the options do not hold has no rule.

Options deliberately left without a rule (they rerun every test): ``log_level`` (it also
sets the level of ``caplog``'s handler), ``strict`` (it also makes parametrization ids and
xfails strict), and everything else not listed here.
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
        "strict_config",
        "faulthandler_timeout",
    }
)
"""ini options that only change reports (pytest's source: they reach formatters of
the terminal, the JUnit XML and the log file, never a test's own handlers), or stop the
whole session before any test runs (``minversion``, ``required_plugins``, and
``strict_config``: pytest reads it only as it checks its configuration)."""

SELECTION_INI = frozenset({"addopts", "testpaths", "markers", "timeout", "console_output_style"})
"""ini options that only choose which tests run or how they are reported: the options
fingerprint leaves them out (``addopts`` gives options, each fingerprinted on its own)."""

RECORDED_FOR_OPTIONS = "xfail marks, warnings, unregistered marks, root log level reads"
"""What the recorder notes for these rules, part of the options fingerprint: a store
recorded by a reks that did not note it reruns everything once (``recorded`` changed)."""

XFAIL_MARK = "<mark xfail>"
"""The ``NAMES`` unit of a test that had an ``xfail`` mark when it last ran."""

WARNED = "<warned>"
"""The ``NAMES`` unit of a test a warning reached the warning filters for."""

UNREGISTERED_MARK = "<mark unregistered>"
"""The ``NAMES`` unit of a test with a mark ``markers`` did not register."""

ROOT_LEVEL_READ = "<root log level read>"
"""The ``NAMES`` unit of a test that read the root logger's level."""

RULES: dict[str, frozenset[str]] = {
    **dict.fromkeys(("ini.xfail_strict", "ini.strict_xfail"), frozenset({XFAIL_MARK})),
    **dict.fromkeys(("ini.filterwarnings", "pythonwarnings", "warnoptions"), frozenset({WARNED})),
    **dict.fromkeys(
        ("ini.strict_markers", "strict_markers"), frozenset({WARNED, UNREGISTERED_MARK})
    ),
    **dict.fromkeys(("ini.log_cli_level", "ini.log_file_level"), frozenset({ROOT_LEVEL_READ})),
}
"""The options with a rule, by the name ``_changed_options`` gives them: the ``NAMES``
units whose tests they can change."""

WHY = {
    XFAIL_MARK: "the test has an xfail mark",
    WARNED: "a warning reached the warning filters in the test",
    UNREGISTERED_MARK: "the test has a mark not registered in markers",
    ROOT_LEVEL_READ: "the test read the root logger's level",
}
"""What a test's ``NAMES`` unit says about it, for the reason it is selected."""


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
        if option in RULES:
            reads |= RULES[option]
            continue
        if option == "override_ini" and _overrides_compared(before, after):
            continue
        unruled.append(option)
    if unruled:
        return OptionChange(tuple(changed), _describe(unruled, before, after))
    return OptionChange(tuple(changed), None, frozenset(reads))


def _overrides_compared(before: Mapping[str, object], after: Mapping[str, object]) -> bool:
    """Whether every ini key either side's ``override_ini`` names is one the options hold
    on both sides (its value is then compared there) or one they leave out."""
    keys: set[str] = set()
    for side in (before, after):
        overrides = side.get("override_ini") or []
        if not isinstance(overrides, list):
            return False
        keys.update(str(entry).partition("=")[0].strip() for entry in overrides)
    compared = (_ini(before).keys() & _ini(after).keys()) | SELECTION_INI
    return keys <= compared


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

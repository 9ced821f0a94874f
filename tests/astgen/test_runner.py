"""The program runner: in-memory modules, captured output, errors, time limits."""

from __future__ import annotations

import pytest

from lsp_server.astgen.program_runner import Runner

PACKAGE = {
    "main.py": "import m\nfrom pkg import g\nprint(m.x, g())\n",
    "m.py": "x = 1\n",
    "pkg/__init__.py": "from .a import g\n",
    "pkg/a.py": "def g():\n    return 5\n",
}


@pytest.mark.parametrize("fork", [False, True])
def test_runs_modules_from_memory(fork: bool) -> None:
    with Runner(timeout=2, fork=fork) as runner:
        result = runner.run(PACKAGE)
        assert (result.stdout, result.error, result.timed_out) == ("1 5\n", None, False)
        # The modules of one program do not leak into the next.
        changed = runner.run({**PACKAGE, "m.py": "x = 7\n"})
        assert changed.stdout == "7 5\n"
        missing = runner.run({"main.py": "import m\n"})
        assert missing.error_type == "ModuleNotFoundError"


@pytest.mark.parametrize("fork", [False, True])
def test_errors_and_time_limit(fork: bool) -> None:
    with Runner(timeout=0.3, fork=fork) as runner:
        failed = runner.run({"main.py": "print('a')\nraise KeyError(3)\n"})
        assert failed.stdout == "a\n" and failed.error == "KeyError: 3"
        looping = runner.run({"main.py": "while True:\n    pass\n"})
        assert looping.timed_out
        assert runner.run({"main.py": "print(2)\n"}).stdout == "2\n"


def test_a_program_that_kills_the_runner_is_reported_and_the_runner_restarts() -> None:
    with Runner(timeout=1) as runner:
        dead = runner.run({"main.py": "import os\nos._exit(3)\n"})
        assert dead.error_type == "RunnerError"
        assert runner.run({"main.py": "print(1)\n"}).stdout == "1\n"


def test_same_behaviour_compares_output_and_exception_type() -> None:
    with Runner() as runner:
        a = runner.run({"main.py": "print(1)\nraise ValueError('x')\n"})
        b = runner.run({"main.py": "print(1)\nraise ValueError('renamed y')\n"})
        c = runner.run({"main.py": "print(1)\n"})
    assert a.same_behaviour(b)
    assert not a.same_behaviour(c)


def test_a_program_that_kills_its_forked_child_is_reported_and_the_zygote_goes_on() -> None:
    with Runner(timeout=1, fork=True) as runner:
        dead = runner.run({"main.py": "import os\nos._exit(3)\n"})
        assert dead.error == "RunnerError: child died (exit status 3)"
        assert runner.run({"main.py": "print(1)\n"}).stdout == "1\n"

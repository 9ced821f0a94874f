"""What recording keeps alive between tests: every object kept is visited by each full
garbage collection of the project's session (jinja: 1.1 s of collections recording, 0.16 s
plain). The attribution's answers are kept for the tests with the same inputs, which
include the test's file: once another file's tests run, an earlier file's answers can
never be asked again (a file's tests run together), and were dropped no more."""

from __future__ import annotations

import pytest

from .helpers import ran_and_failed, write

pytest_plugins = ["pytester"]

KEPT_FILES = """
def kept_files(config):
    attribution = config.pluginmanager.get_plugin("reks-recorder").attribution
    return {key[1][0].rsplit("/", 1)[-1] for key in attribution._answers}
"""


def test_a_later_file_keeps_no_answer_of_an_earlier_one(pytester: pytest.Pytester) -> None:
    write(pytester, "lib.py", "def double(x):\n    return 2 * x\n")
    write(pytester, "conftest.py", KEPT_FILES)
    write(
        pytester,
        "test_a.py",
        """
        import pytest

        import lib


        @pytest.mark.parametrize("x", [1, 2, 3])
        def test_double(x):
            assert lib.double(x) == 2 * x
        """,
    )
    write(
        pytester,
        "test_b.py",
        """
        from conftest import kept_files

        import lib


        def test_first():
            assert lib.double(0) == 0


        def test_second(request):
            # test_first was recorded; the answers of test_a.py's cases are gone.
            assert kept_files(request.config) == {"test_b.py"}
        """,
    )
    ran, failed = ran_and_failed(pytester)
    assert len(ran) == 5
    assert failed == set()

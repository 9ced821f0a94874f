"""Scratch reproduction (validators' ``ValidationError.__repr__``)."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "checks/__init__.py",
        """
        from .utils import ValidationError
        from .between import between

        __all__ = ("ValidationError", "between")
        """,
    )
    write(
        pytester,
        "checks/utils.py",
        """
        class ValidationError(Exception):
            def __init__(self, function, arg_dict):
                self.func = function
                self.__dict__.update(arg_dict)

            def __repr__(self):
                return (
                    f"ValidationError(func={self.func.__name__}, "
                    + f"args={({k: v for (k, v) in self.__dict__.items() if k != 'func'})})"
                )

            def __str__(self):
                return repr(self)
        """,
    )
    write(
        pytester,
        "checks/between.py",
        """
        from .utils import ValidationError


        def between(value, low, high):
            if low <= value <= high:
                return True
            return ValidationError(between, {"value": value, "low": low, "high": high})
        """,
    )
    write(
        pytester,
        "test_repr_case.py",
        """
        from checks import between


        def test_repr():
            assert "ValidationError(func=between" in repr(between(3, 4, 5))


        def test_fields():
            assert between(3, 4, 5).__dict__["value"] == 3
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_repr", "test_fields"}
    return pytester


def test_a_new_package_name_selects_no_repr(project: pytest.Pytester) -> None:
    edit(project, "checks/__init__.py", '__all__ = (', 'extra = 1\n__all__ = (')
    assert run(project) == set()


def test_guard_plain_global_via_module_self(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "kit.py",
        """
        class Lister:
            def names(self):
                return sorted(k for k in self.__dict__ if not k.startswith("_"))
        """,
    )
    write(pytester, "things.py", "from kit import Lister\nalpha = 1\n")
    write(
        pytester,
        "test_guard_case.py",
        """
        import things
        from kit import Lister


        def test_module_names():
            assert Lister.names(things) == ["Lister", "alpha"]
        """,
    )
    assert run(pytester, flag="--reks-all") == {"test_module_names"}
    write(pytester, "things.py", "from kit import Lister\nalpha = 1\nbeta = 2\n")
    assert run(pytester) == {"test_module_names"}
    write(pytester, "things.py", "from kit import Lister\nalpha = 1\nbeta = 2\nfrom os import sep\n")
    assert run(pytester) == {"test_module_names"}

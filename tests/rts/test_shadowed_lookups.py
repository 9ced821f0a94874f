"""Code that only names a lookup builtin without looking anything up: a parameter or local
variable called ``dir`` or ``vars`` (boltons' ``SpooledIOBase.__init__(self, dir=None)``),
or ``name in sys.modules`` (boltons' ``make_sentinel``, run at import by every module),
a store into an object's ``__dict__`` (boltons' ``cachedproperty``: a store finds no
binding) or a ``__dict__`` item by a constant key,
reads no binding by string: its tests do not depend on every binding of their modules
(boltons: a ``__version__`` bump reran 370 of 431 tests)."""

from __future__ import annotations

import sys

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(
        pytester,
        "spool.py",
        """
        import sys

        __version__ = "1.0"


        def sentinel(name):
            if name not in sys.modules:
                raise ValueError(name)
            return object()


        MISSING = sentinel(__name__)


        class Spool:
            def __init__(self, dir=None):
                self.dir = dir


        def listing(path):
            vars = [path]
            return vars


        def shadow_then_builtin(obj):
            dir = 1
            return dir


        def by_string(obj, name):
            return vars(obj)[name]


        def module_by_name(name):
            return sys.modules[name]


        class Cached:
            def __init__(self, func):
                self.func = func

            def __get__(self, obj, owner=None):
                value = obj.__dict__[self.func.__name__] = self.func(obj)
                return value


        class Box:
            @Cached
            def size(self):
                return 3


        def unwrap(func):
            del func.__dict__["__wrapped__"]
            func.__dict__.update({"unwrapped": True})
            return func
        """,
    )
    write(
        pytester,
        "test_spool.py",
        """
        import spool


        def test_spool():
            assert spool.Spool("d") is not None


        def test_listing():
            assert spool.listing("p") == ["p"]


        def test_by_string():
            assert spool.by_string(spool, "__version__") == "1.0"


        def test_cached():
            assert spool.Box().size == 3


        def test_unwrap():
            def f():
                pass

            f.__wrapped__ = None
            assert spool.unwrap(f) is f


        def test_module_by_name():
            assert spool.module_by_name("spool").__version__ == "1.0"
        """,
    )
    assert len(run(pytester, flag="--reks-all")) == 6
    return pytester


# ``sentinel(__name__)`` asks at import whether ``spool`` is there: told on 3.12 to be about
# the module being imported, no listing; before, a listing selected by any change
# (``rts.module_presence``).
EVERY_TEST = {
    "test_spool",
    "test_listing",
    "test_by_string",
    "test_cached",
    "test_unwrap",
    "test_module_by_name",
}
BY_STRING = {"test_by_string", "test_module_by_name"} if sys.version_info >= (3, 12) else EVERY_TEST


def test_a_parameter_or_local_named_like_a_lookup_is_no_lookup(
    project: pytest.Pytester,
) -> None:
    edit(project, "spool.py", '"1.0"', '"1.1"')
    assert run(project) == BY_STRING


def test_a_real_lookup_still_sees_a_new_binding(project: pytest.Pytester) -> None:
    edit(
        project,
        "spool.py",
        "MISSING = sentinel(__name__)",
        "MISSING = sentinel(__name__)\nLIMIT = 2",
    )
    assert run(project) == BY_STRING

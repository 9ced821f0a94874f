"""A class whose methods are decorated by a function of its own module that only wraps
(``rts.wrapping_decorators``), on real pytest sessions. toolz's ``@instanceproperty`` is
such a function: it returns a ``partial`` of itself or a ``property`` subclass made from its
arguments. Not known to only wrap, it kept ``curry``, ``Compose`` and ``excepts`` in the
module unit, and a blank line added to ``excepts``' docstring (85be7ad) ran all 204 tests."""

from __future__ import annotations

import pytest

from .helpers import edit, run, write

pytest_plugins = ["pytester"]

PROPS = """
from functools import partial


def instanceproperty(fget=None, fset=None, doc=None, classval=None):
    \"\"\"Like ``property``, but ``classval`` when read on the class.\"\"\"
    if fget is None:
        return partial(instanceproperty, fset=fset, doc=doc, classval=classval)
    return InstanceProperty(fget=fget, fset=fset, doc=doc, classval=classval)


class InstanceProperty(property):
    def __init__(self, fget=None, fset=None, fdel=None, doc=None, classval=None):
        self.classval = classval
        property.__init__(self, fget=fget, fset=fset, fdel=fdel, doc=doc)

    def __get__(self, obj, type=None):
        if obj is None:
            return self.classval
        return property.__get__(self, obj, type)


class Excepts:
    \"\"\"Catch exceptions.\"\"\"

    def __init__(self, func):
        self.func = func

    @instanceproperty(classval=__doc__)
    def __doc__(self):
        return "an instance's doc"

    @instanceproperty
    def name(self):
        return "excepts"


def helper():
    return 1
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester, "props.py", PROPS)
    write(
        pytester,
        "test_props.py",
        """
        def test_name():
            import props

            assert props.Excepts(len).name == "excepts"


        def test_class_doc():
            import props

            assert props.Excepts.__doc__ == "Catch exceptions."


        def test_helper():
            import props

            assert props.helper() == 1
        """,
    )
    assert run(pytester) == {"test_name", "test_class_doc", "test_helper"}
    return pytester


@pytest.mark.parametrize(
    "new",
    ['"""Catch exceptions.\n\n    More."""', '"""Catch errors."""'],  # the second fails it
)
def test_a_changed_class_docstring_selects_its_readers(project: pytest.Pytester, new: str) -> None:
    edit(project, "props.py", '"""Catch exceptions."""', new)
    # The class body reads its own docstring only to define ``__doc__`` through a wrapper
    # (``classval=__doc__``), so only the tests reading ``__doc__`` see it
    # (``rts.class_doc_reads``); ``test_name``, which uses the class, does not.
    assert run(project) == {"test_class_doc"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The wrapper body itself ran at import.
        ("classval=classval)\n", "classval=(classval or '') + '!')\n"),
        # The property subclass's __init__ ran at import.
        ("self.classval = classval", "self.classval = classval or 'x'"),
        # Headers alone: applying the decorator raises TypeError at import.
        ('classval=None):\n    """', 'classval=None, *, strict):\n    """'),
        ("fdel=None, doc=None, classval=None):", "fdel=None, doc=None, classval=None, *, k):"),
    ],
)
def test_a_changed_wrapper_selects_every_importer(
    project: pytest.Pytester, old: str, new: str
) -> None:
    edit(project, "props.py", old, new)
    assert run(project) == {"test_name", "test_class_doc", "test_helper"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A decorator that registers what it is given has an effect elsewhere.
        ('    """Like', '    SEEN.append(fget)\n    """Like'),
        (
            "        self.classval = classval",
            "        SEEN.append(self)\n        self.classval = classval",
        ),
        # A wrapper that writes a global.
        ('    """Like', '    global LAST\n    LAST = fget\n    """Like'),
    ],
)
def test_a_decorator_with_effects_keeps_the_class_in_the_module_unit(
    project: pytest.Pytester, old: str, new: str
) -> None:
    edit(
        project,
        "props.py",
        "from functools import partial",
        "from functools import partial\n\nSEEN = []",
    )
    edit(project, "props.py", old, new)
    run(project)
    edit(project, "props.py", '"""Catch exceptions."""', '"""Catch exceptions.\n\n    More."""')
    assert run(project) == {"test_name", "test_class_doc", "test_helper"}

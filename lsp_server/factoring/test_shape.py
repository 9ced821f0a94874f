"""What emission needs to know of the system test (read in the capturing pytest session):
its module, function, class, fixtures and parametrized case."""

from __future__ import annotations

from typing import Any


def test_shape(item: Any) -> dict[str, Any]:
    """What emission needs to call the original test function from a factored test."""
    info = getattr(item, "_fixtureinfo", None)
    return {
        "module": getattr(getattr(item, "module", None), "__name__", None),
        "file": str(getattr(item, "path", "")),
        "function": getattr(getattr(item, "function", None), "__name__", None),
        "class": getattr(getattr(item, "cls", None), "__name__", None),
        "parametrized": hasattr(item, "callspec"),
        "argnames": list(getattr(info, "argnames", ()) or ()),
        "marked": _marked(item),
        **_parameters(item),
    }


def _marked(item: Any) -> list[str]:
    """Which of the original's module, class and function carry marks of their own (a
    parametrize mark aside: the factored test names its one case itself)."""
    owners = {
        "module": getattr(item, "module", None),
        "class": getattr(item, "cls", None),
        "function": getattr(item, "function", None),
    }
    found = []
    for where, owner in owners.items():
        marks = getattr(owner, "pytestmark", None) if owner is not None else None
        if marks is None:
            continue
        listed = marks if isinstance(marks, list) else [marks]
        if any(getattr(m, "name", "parametrize") != "parametrize" for m in listed):
            # ``pytestmark = pytest.mark.x`` in a class body: one mark, not a list
            one = where == "class" and not isinstance(marks, list)
            found.append(f"{where} (one)" if one else where)
    return found


def _parameters(item: Any) -> dict[str, Any]:
    """A parametrized case: its id, each parameter's value as source text (None when the
    value has no literal spelling) and the parameters that go to fixtures (indirect)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return {}
    import ast

    params: dict[str, str | None] = {}
    for name, value in callspec.params.items():
        text = repr(value)
        try:
            params[name] = text if ast.literal_eval(text) == value else None
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            params[name] = None
    return {"case": callspec.id, "params": params, "indirect": _indirect(item)}


def _indirect(item: Any) -> list[str]:
    """Parameters that ``@pytest.mark.parametrize(..., indirect=...)`` hands to fixtures."""
    names: list[str] = []
    for mark in item.iter_markers("parametrize"):
        indirect = mark.kwargs.get("indirect", False)
        argnames = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
        if isinstance(argnames, str):
            argnames = [n.strip() for n in argnames.split(",") if n.strip()]
        if indirect is True:
            names += list(argnames)
        elif isinstance(indirect, (list, tuple)):
            names += [n for n in indirect if n in argnames]
    return names

"""What a code read told at run time (``rts.code_read_targets``) shows: the units a test
that read it depends on.

- A module's source (``getsource(module)``, a class's, found by parsing its module): every
  unit of its file, and the file's ``NAMES`` unit of any name, which a definition added to
  it changes (``file_units_read``).
- A function's code object: its own units (header, body, default values, docstring) and
  those of the functions nested in it (its constants hold their code), and what sets its
  ``co_firstlineno``: every unit of its file that may sit above it. Which attribute of the
  code object was read is not told, so its position always counts. Units carry no line
  numbers but function units (``FileUnits.spans``): the functions that start below the
  function's last line cannot move it and are left out; every other unit (module
  statements, classes, class attributes, imports) is kept. The other parts of a code
  object (``co_code``, ``co_consts``, ``co_lines``: relative to ``co_firstlineno``) change
  only with the function's own text, in its own units. A line added with no unit of its
  own (a comment, a blank line) moves the function: its ``LINES`` unit (``rts.layout_unit``)
  and those of the functions nested in it tell, not the file's layout nor other functions'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import CodeType

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.code_read_targets import UNTOLD
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.reads import EVERY_NAME, NAMES
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.unit_names import MODULE, is_place, module_read


def file_units_read(
    paths: Iterable[str], states: FileStates, intern: Callable[[Unit], int]
) -> set[int]:
    """Every unit of the files ``paths`` (relative), and the ``NAMES`` unit of any name of
    each: what reading a module's source shows (a definition added there shows in it)."""
    ids: set[int] = set()
    for path in paths:
        file_units = states.units(path)
        if file_units is not None:
            ids.update(intern(Unit(path, name)) for name in file_units.checksums)
        ids.add(intern(Unit(NAMES, module_read(EVERY_NAME, path))))
    return ids


def code_read_units(
    functions: Iterable[CodeType],
    sources: Iterable[str],
    states: FileStates,
    paths: ProjectPaths,
    intern: Callable[[Unit], int],
) -> set[int]:
    """The units the code objects ``functions`` (``__code__`` read) and the files
    ``sources`` (absolute; their source read) show, of the project's files. An ``UNTOLD``
    source adds nothing: the test keeps the wide reading (``rts.attribution``)."""
    whole: set[str] = set()
    ids: set[int] = set()
    for filename in sources:
        rel = None if filename == UNTOLD else paths.python_rel(filename)
        if rel is not None:
            whole.add(rel)
    for code in functions:
        rel = paths.python_rel(code.co_filename)
        if rel is None:
            continue  # a library's: no unit
        file_units = states.units(rel)
        names = None if file_units is None else _names_up_to(file_units, code)
        if names is None:
            whole.add(rel)  # a module's code, a lambda's at its top: told by the file only
        else:
            ids.update(intern(Unit(rel, name)) for name in names)
            ids.add(intern(Unit(NAMES, module_read(EVERY_NAME, rel))))
    return ids | file_units_read(whole, states, intern)


def _names_up_to(file_units: FileUnits, code: CodeType) -> list[str] | None:
    """The units of ``file_units`` that the code object ``code`` of one of its functions
    shows or is placed by: all but those of the functions starting below its last line;
    None when ``code`` is no function unit's."""
    unit = file_units.unit_for_code(code)
    span = file_units.spans.get(unit.name)
    if unit.name == MODULE or span is None:
        return None
    below = tuple(
        other.name + "." for other in file_units.spans.values() if other.first_line > span.last_line
    )
    # Its own ``LINES`` and ``PLACED`` units place it; the places of others and of the
    # file do not.
    own = unit.name + "."
    return [
        name
        for name in file_units.checksums
        if not (name + ".").startswith(below) and (name.startswith(own) or not is_place(name))
    ]

"""Modules and imports, for module rename, move (of a global function) and rename of a
function used across modules: ``import m``, ``from m import f``, ``import m as k``,
``from m import f as g``, a second importing module, relative imports, and re-exports from
a package ``__init__``."""

from __future__ import annotations

from lsp_server.astgen.gen import Gen, choice, optional, product, sequences
from lsp_server.astgen.program import MAIN, Case, cursor_case, rename_case

_MODULE = 'VALUE = 3\n\n\ndef $f():\n    return "f%d" % VALUE\n'

# import style -> (lines of main.py, extra files); ``P`` is the module's dotted path.
_STYLES: list[tuple[str, tuple[str, dict[str, str]]]] = [
    ("import", ('import P\nprint("a", P.$f(), P.VALUE)', {})),
    ("from-import", ('from P import $f\nprint("b", $f())', {})),
    ("import-as", ('import P as k\nprint("c", k.$f())', {})),
    ("from-import-as", ('from P import $f as g\nprint("d", g())', {})),
    (
        "second-module",
        (
            'import Duser\nprint("e", Duser.use())',
            {"Suser.py": "from P import VALUE, $f\n\n\ndef use():\n    return $f() + str(VALUE)\n"},
        ),
    ),
    (
        "relative",
        (
            'from pkg import rel\nprint("r", rel.use())',
            {"pkg/rel.py": 'from .m import $f\n\n\ndef use():\n    return $f() + "!"\n'},
        ),
    ),
    ("re-export", ('from pkg import $f as h\nprint("x", h())', {"pkg/__init__.py": "RE"})),
]

_LAYOUTS = {"flat": ("m", "m.py", ""), "package": ("pkg.m", "pkg/m.py", "pkg/")}


def _files(layout: str, styles: tuple[tuple[str, dict[str, str]], ...]) -> dict[str, str] | None:
    dotted, path, folder = _LAYOUTS[layout]
    files: dict[str, str] = {MAIN: ""}
    if layout == "package":
        files["pkg/__init__.py"] = ""
    files[path] = _MODULE
    files[folder + "other.py"] = '"""Where moved code goes."""\n'
    lines: list[str] = []
    for main_lines, extra in styles:
        for extra_path, text in extra.items():
            if extra_path.startswith("pkg/") and layout != "package":
                return None  # relative imports and re-exports need a package
            if text == "RE":
                text = "from .m import $f\n"
            real = extra_path.replace("S", folder, 1) if extra_path.startswith("S") else extra_path
            files[real] = text.replace("P", dotted)
        module_prefix = dotted.rsplit(".", 1)[0] + "." if "." in dotted else ""
        lines.append(main_lines.replace("Duser", module_prefix + "user").replace("P", dotted))
    files[MAIN] = "\n".join(lines) + "\n"
    return files


def _plain(files: dict[str, str]) -> dict[str, str]:
    return {p: t.replace("$f", "f") for p, t in files.items()}


def generate(bound: int) -> Gen[Case]:
    """Layout x multisets of up to ``bound`` import styles x refactoring."""

    def build(parts: tuple[str, tuple[tuple[str, dict[str, str]], ...], str]) -> Gen[Case]:
        layout, styles, refactoring = parts
        files = _files(layout, styles)
        if files is None:
            return optional(None)
        module_path = _LAYOUTS[layout][1]
        if refactoring == "rename-module":
            plain = _plain(files)
            plain[module_path] = "‸" + plain[module_path]
            return optional(cursor_case(plain, "rename-module", (("new_name", "mod2"),), "modules"))
        if refactoring == "move":
            plain = _plain(files)
            plain[module_path] = plain[module_path].replace("def f", "def ‸f")
            destination = _LAYOUTS[layout][2] + "other.py"
            return optional(cursor_case(plain, "move", (("destination", destination),), "modules"))
        marked = {p: t.replace("$f", "«f»") for p, t in files.items()}
        marked[module_path] = files[module_path].replace("$f", "«@f»", 1).replace("$f", "«f»")
        return optional(rename_case(marked, "renamed", "modules"))

    return product(
        choice("layout", [(name, name) for name in _LAYOUTS]),
        sequences("import", _STYLES, max(1, bound), repeat=False),
        choice(
            "refactoring",
            [("rename-module", "rename-module"), ("move", "move"), ("rename", "rename")],
        ),
    ).bind(build)

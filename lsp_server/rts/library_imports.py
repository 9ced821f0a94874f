"""Whether importing an installed library shows to a test only by the names it binds.

A new project module that imports a library no test imported before (python-validators
4973c49: ``eth_address.py`` does ``from eth_hash.auto import keccak`` in a ``try``, and the
package ``__init__`` imports it) runs the library's import in every test importing the
package. Its code is no project file: its syntax says nothing (``eth_hash.auto`` calls
``Keccak256(AutoBackend())``), so ``rts.quiet_modules`` judged only standard-library
and project imports and all 758 tests reran (pytest-testmon: 25).

The library's code is part of the environment (its distributions are in the fingerprint:
a change of them reruns everything), so its import does the same whenever the same
interpreter runs it in the same environment. Here it is run once, in a fresh process of
the interpreter that runs the tests (in the project's folder, on the caller's ``sys.path``,
with the standard library modules and pytest the caller has loaded imported first), and
watched (``_PROBE``): the import must succeed, raise no audit event but reading ones (a
file opened for reading, a shared library loaded, code compiled: anything else, a process,
a write, an environment variable, a hook, counts as an effect), load no project module,
and leave unchanged every module loaded before it (each name's value and those of the
classes it binds, new submodules aside), the environment, the working directory, the
warning filters, the root logger, the signal handlers, the threads, the exit and
garbage-collector callbacks, the hooks of ``sys`` and the random state. A library whose
import passes shows to a test only by its names: those the importing statement binds,
which have units of their own.

What is not seen: state held in C (a library's extension configuring another's), objects
changed in place (a registry list of another library appended to), and a library behaving
otherwise because a module the probe did not load first is loaded in the test session (a
library loaded only by another library). Verdicts are kept per process, by interpreter,
folder, statement, loaded modules and ``sys.path``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from lsp_server.rts.probe_process import probe_answer, probing

_PROBE = r"""
import atexit, gc, importlib, json, logging, os, random, signal, sys, threading, warnings
spec, dumps, loaded = json.loads(sys.argv[1]), json.dumps, set()  # classes there before
sys.path[:] = spec["path"]  # the caller's: a conftest or pytest's rootdir may add to it
for name in spec["preload"]:
    try:
        importlib.import_module(name)
    except BaseException:
        pass
READING = {"import", "open", "os.listdir", "os.scandir", "ctypes.dlopen", "ctypes.dlsym",
           "compile", "exec", "marshal.loads", "sys._getframe", "os.walk", "glob.glob",
           "glob.glob/2", "code.__new__", "function.__new__", "object.__getattr__",
           "importlib.import_module", "sys._getframemodulename", "builtins.id",
           "os.stat", "os.lstat"}
WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
events = []
def hook(event, args):
    if event == "open":
        mode, flags = args[1], args[2]
        if (mode is not None and set(str(mode)) & set("wax+")) or (flags or 0) & WRITES:
            events.append("open for writing")
    elif event in ("object.__setattr__", "object.__delattr__"):
        # On a class this import made (namedtuple, enum): fine; on any other, a patch.
        if not isinstance(args[0], type) or id(args[0]) in loaded or not gc.is_tracked(args[0]):
            events.append("%s %s" % (event, args[1]))
    elif event not in READING:
        events.append(event)
def modules():  # each module's names, and those of the classes it binds
    found = {}
    for name, m in list(sys.modules.items()):  # the probe's own module: any name of it
        if m is sys.modules["__main__"] or not hasattr(m, "__dict__"):
            continue
        names = found[name] = {}
        for key, value in list(vars(m).items()):
            names[key] = id(value)
            if isinstance(value, type):
                names.update((key + "." + k, id(v)) for k, v in list(vars(value).items()))
    return found
def state():
    root = logging.getLogger()
    return [dict(os.environ), os.getcwd(), list(map(repr, warnings.filters)),
            [id(h) for h in root.handlers], root.level, logging.root.manager.disable,
            [repr(signal.getsignal(s)) for s in signal.valid_signals()],
            threading.active_count(), atexit._ncallbacks(), len(gc.callbacks),
            gc.isenabled(), gc.get_threshold(), repr(random.getstate()),
            list(sys.path), list(map(id, sys.meta_path)), list(map(id, sys.path_hooks)),
            sys.getrecursionlimit(), sys.getswitchinterval(), id(sys.gettrace()),
            id(sys.getprofile()), id(sys.excepthook), id(sys.displayhook),
            id(sys.unraisablehook), id(sys.breakpointhook),
            id(sys.stdin), id(sys.stdout), id(sys.stderr)]
before_modules, before = modules(), state()
loaded.update(id(o) for o in gc.get_objects() if isinstance(o, type))
sys.addaudithook(hook)
outcome = "ok"
try:
    if spec["names"] is None:
        importlib.import_module(spec["module"])
    else:
        exec("from %s import %s" % (spec["module"], ", ".join(spec["names"])), {})
except ImportError:
    outcome = "ImportError"
except BaseException as error:
    outcome = type(error).__name__
events = sorted(set(events))
after_modules, after = modules(), state()
changed = []
for name, names in before_modules.items():
    now = after_modules.get(name)
    if now is None:
        changed.append(name)
        continue
    for key, value in now.items():
        if names.get(key, value) != value:
            changed.append(name + "." + key)
        elif key not in names and name + "." + key not in after_modules:
            changed.append(name + "." + key)
    changed.extend(name + "." + key for key in names.keys() - now.keys())
if before != after:
    changed.append("<state>")
import sysconfig  # a venv inside the project's folder holds no project code
installed = [os.path.join(os.path.realpath(sysconfig.get_paths()[k]), "")
             for k in ("purelib", "platlib")]
for name in after_modules.keys() - before_modules.keys():  # the project's own code ran
    path = os.path.realpath(getattr(sys.modules.get(name), "__file__", None) or os.sep)
    inside = path.startswith(os.path.join(spec["root"], ""))
    if inside and not any(path.startswith(folder) for folder in installed):
        changed.append("<project>")
print(dumps({"outcome": outcome, "events": events, "changed": sorted(changed)}))
"""


@dataclass(frozen=True)
class ProbeResult:
    """What importing a library did in a fresh process (``_PROBE``)."""

    outcome: str
    """"ok", "ImportError" (or a subclass), or the name of what else it raised."""
    events: tuple[str, ...]
    """Audit events other than reading ones."""
    changed: tuple[str, ...]
    """Modules or names of modules loaded before that it changed; ``<state>``: some
    state of the process it changed."""

    def quiet(self) -> bool:
        """Whether the import succeeded and shows by its names only. An ``ImportError``
        does not count, even under a handler: the test session's ``sys.path`` may have
        more by then (pytest puts the test files' folders on it as it imports them), so
        the library, or a project module it imports, may be found there."""
        return self.outcome == "ok" and not self.events and not self.changed


_Key = tuple[bool, str, str, str, tuple[str, ...] | None, tuple[str, ...], tuple[str, ...]]
_VERDICTS: dict[_Key, ProbeResult | None] = {}


def probe_import(root: Path, module: str, names: tuple[str, ...] | None) -> ProbeResult | None:
    """Run ``import module`` (``names`` None) or ``from module import names`` in a fresh
    process of this interpreter and tell what it did (a module of the project ``root``
    loaded by it is a change); None when the probe itself failed (no answer, a timeout,
    output it broke)."""
    preload = _preloaded()
    key = (probing(), sys.executable, str(root), module, names, preload, tuple(sys.path))
    if key not in _VERDICTS:
        _VERDICTS[key] = _run_probe(str(root), module, names, preload)
    return _VERDICTS[key]


def _preloaded() -> tuple[str, ...]:
    """The standard-library modules (top-level names) and pytest, as loaded here: the
    test session has them loaded when the project's modules are imported."""
    stdlib: frozenset[str] = getattr(sys, "stdlib_module_names", frozenset())
    top = {name.split(".")[0] for name in list(sys.modules)}
    return tuple(sorted(n for n in top if (n in stdlib or n == "pytest") and n != "__main__"))


def _run_probe(
    root: str, module: str, names: tuple[str, ...] | None, preload: tuple[str, ...]
) -> ProbeResult | None:
    spec = {"root": root, "module": module, "names": names, "preload": preload, "path": sys.path}
    # In the project's folder, as the tests run: a library may read files there.
    found = probe_answer(_PROBE, spec, cwd=root)
    if not isinstance(found, dict):
        return None
    try:
        return ProbeResult(found["outcome"], tuple(found["events"]), tuple(found["changed"]))
    except (KeyError, TypeError):
        return None

"""Benchmark: reks against pylsp-rope, jedi-language-server and plain rope, same run, same input.

Input: a copy of the installed Python's standard library (``Lib/`` without its test
suites and ``site-packages``) in a temporary folder. Every server is driven over stdio by
pygls's client, one after the other, on its own fresh copy-free session of that folder
(nothing is ever applied, so the copy stays pristine).

Measured, in seconds (lower is better):

- ``code actions``: ``textDocument/codeAction`` at the name of ``textwrap.dedent``'s ``def``
  (first request, then the median of warm repeats);
- ``rename first``/``rename warm``: ``textDocument/rename`` of ``textwrap.dedent`` (used in
  many modules), first request of the session, then the median of warm repeats;
- ``extract method``: computing the edit of "extract method" on two statements of
  ``dedent`` (reks: ``codeAction/resolve``; pylsp-rope: listing + ``executeCommand``, which
  sends ``workspace/applyEdit``; jedi-language-server: listing, which computes edits);
- plain rope in this process: the same rename, warm, given the files reks gives it (those
  that contain the old name; the goal: reks at most +30%) and given every file;
- ``initialize``: process start to the answer of ``initialize``; ``start to rename``: a fresh
  session's process start to the answer of its first request, the rename (goal: under 2 s).

Every server gets the same requests in the same order: code actions, rename, extract.
reks is compiled to bytecode first, as the peers are by pip (``compile_reks``).

Peers are installed from PyPI into ``--peers`` (a venv, created when missing).

    nice python bench/refactor_codeactions.py [--repeat 3] [--full]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from reks_bytecode import compile_reks

TIMEOUT = 600.0
"""Seconds any one request may take (``--timeout``): generous, since a loaded machine
(load 24 on 2 cores) once timed ``initialize`` out at 180 s."""
SKIP_DIRS = {"site-packages", "test", "tests", "idle_test", "__pycache__"}
PEERS = ["python-lsp-server", "pylsp-rope", "jedi-language-server"]


@dataclass
class Figures:
    name: str
    values: dict[str, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def copy_stdlib(dest: Path, full: bool) -> Path:
    source = Path(sysconfig.get_paths()["stdlib"])
    root = dest / "Lib"

    def ignore(folder: str, names: list[str]) -> list[str]:
        skip = {"__pycache__", "site-packages"} if full else SKIP_DIRS
        return [n for n in names if n in skip or n.endswith((".pyc", ".so"))]

    shutil.copytree(source, root, ignore=ignore)
    return root


def ensure_peers(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if (
        not (venv / "bin" / "pylsp").exists()
        or not (venv / "bin" / "jedi-language-server").exists()
    ):
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEERS], check=True)
    return venv


def position_of(text: str, needle: str, delta: int = 0) -> types.Position:
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


class Session:
    """One language server over stdio, answering what servers ask of their client."""

    def __init__(self, command: list[str], root: Path, settings: dict[str, Any] | None = None):
        self.command = command
        self.root = root
        self.settings = settings or {}
        self.client = LanguageClient("reks-bench", "1")
        self.applied: list[types.ApplyWorkspaceEditParams] = []
        self.progress_ended = asyncio.Event()
        client = self.client
        # pylsp announces a notebook filter lsprotocol cannot structure; the client never
        # needs it, so read it as absent instead of failing the whole initialize response.
        converter = client.protocol._converter
        for notebook in (
            types.NotebookDocumentSyncOptions,
            types.NotebookDocumentSyncRegistrationOptions,
        ):
            converter.register_structure_hook(notebook, lambda obj, _: None)

        @client.feature(types.PROGRESS)
        def progress(params: types.ProgressParams) -> None:
            value = params.value
            ended = isinstance(value, types.WorkDoneProgressEnd)
            if ended or (isinstance(value, dict) and value.get("kind") == "end"):
                self.progress_ended.set()

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            self.applied.append(params)  # measured, never applied: the copy stays as it was
            return types.ApplyWorkspaceEditResult(applied=True)

        @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def progress_create(params: types.WorkDoneProgressCreateParams) -> None:
            return None

        @client.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [self.settings for _ in params.items]

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            return None

    async def start(self) -> None:
        self.spawned = time.perf_counter()
        await self.client.start_io(*self.command, cwd=str(self.root))
        caps = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                apply_edit=True,
                workspace_edit=types.WorkspaceEditClientCapabilities(
                    document_changes=True,
                    resource_operations=[
                        types.ResourceOperationKind.Create,
                        types.ResourceOperationKind.Rename,
                    ],
                ),
                configuration=True,
            ),
            text_document=types.TextDocumentClientCapabilities(
                code_action=types.CodeActionClientCapabilities(
                    code_action_literal_support=types.ClientCodeActionLiteralOptions(
                        code_action_kind=types.ClientCodeActionKindOptions(
                            value_set=[types.CodeActionKind.Refactor, types.CodeActionKind.Source]
                        )
                    ),
                    data_support=True,
                    resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]),
                ),
                rename=types.RenameClientCapabilities(prepare_support=True),
            ),
            window=types.WindowClientCapabilities(work_done_progress=True),
        )
        await asyncio.wait_for(
            self.client.initialize_async(
                types.InitializeParams(
                    capabilities=caps,
                    process_id=os.getpid(),
                    root_uri=self.root.as_uri(),
                    workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="Lib")],
                    initialization_options=self.settings or None,
                )
            ),
            TIMEOUT,
        )
        self.initialize_seconds = time.perf_counter() - self.spawned
        self.client.initialized(types.InitializedParams())
        if self.settings:
            self.client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=self.settings)
            )

    def open(self, path: Path) -> str:
        text = path.read_text()
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=path.as_uri(), language_id="python", version=1, text=text
                )
            )
        )
        return text

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 30)
            self.client.exit(None)
        except Exception:
            pass
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.stop(), 30)


async def timed(make: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = await asyncio.wait_for(make(), TIMEOUT)
    return time.perf_counter() - start, result


async def first_and_warm(
    make: Callable[[int], Awaitable[Any]],
    repeat: int,
    between: Callable[[], Awaitable[Any]] | None = None,
) -> tuple[float, float, Any]:
    """Time ``make(0)``, then the median of ``make(1..repeat)`` (each call its own index, so
    a rename asks for a new name every time and no answer can be served from a cache)."""
    first, result = await timed(lambda: make(0))
    if between is not None:
        await between()
    warm = [(await timed(lambda i=i: make(i)))[0] for i in range(1, repeat + 1)]
    return first, statistics.median(warm), result


@dataclass
class Target:
    path: Path
    text: str
    def_name: types.Position
    selection: types.Range


def target(root: Path) -> Target:
    path = root / "textwrap.py"
    text = path.read_text()
    start = position_of(text, "    text = _whitespace_only_re.sub")
    end = position_of(text, "    for indent in indents:")
    return Target(path, text, position_of(text, "def dedent", 4), types.Range(start, end))


def code_action_params(t: Target, rng: types.Range) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=t.path.as_uri()),
        range=rng,
        context=types.CodeActionContext(diagnostics=[]),
    )


def rename_params(t: Target, new_name: str) -> types.RenameParams:
    return types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=t.path.as_uri()),
        position=t.def_name,
        new_name=new_name,
    )


def count_files(edit: types.WorkspaceEdit | None) -> int:
    if edit is None:
        return 0
    if edit.document_changes:
        return len(edit.document_changes)
    return len(edit.changes or {})


async def bench_reks(root: Path, repeat: int) -> Figures:
    fig = Figures("reks")
    session = Session([sys.executable, "-m", "lsp_server"], root)
    await session.start()
    t = target(root)
    session.open(t.path)
    at = types.Range(t.def_name, t.def_name)
    client = session.client

    async def warmed() -> None:
        # "warm": the background pre-warm (parsing every module) has finished
        start = time.perf_counter()
        await asyncio.wait_for(session.progress_ended.wait(), TIMEOUT)
        fig.notes.append(
            f"pre-warm finished {time.perf_counter() - start:.1f}s after the first rename"
        )

    fig.values["initialize"] = session.initialize_seconds
    # The same order for every server: code actions, rename, extract method.
    first, warm, actions = await first_and_warm(
        lambda i: client.text_document_code_action_async(code_action_params(t, at)), repeat
    )
    fig.values.update({"code actions first": first, "code actions warm": warm})
    fig.notes.append(f"{len(actions or [])} code actions at the def")
    first, warm, edit = await first_and_warm(
        lambda i: client.text_document_rename_async(rename_params(t, f"dedent_{i}")),
        repeat,
        warmed,
    )
    fig.values.update({"rename first": first, "rename warm": warm})
    fig.notes.append(f"rename edits {count_files(edit)} files")

    async def extract(i: int) -> Any:
        listed = await client.text_document_code_action_async(code_action_params(t, t.selection))
        chosen = next(
            a
            for a in listed or []
            if isinstance(a, types.CodeAction) and a.kind == "refactor.extract.method"
        )
        return await client.code_action_resolve_async(chosen)

    first, warm, resolved = await first_and_warm(extract, repeat)
    fig.values["extract method"] = warm
    fig.notes.append(f"extract method edits {count_files(resolved.edit)} file(s)")
    await session.stop()
    return fig


async def start_to_first_rename(
    command: list[str], root: Path, settings: dict[str, Any] | None = None
) -> float:
    """Seconds from starting the server process to the answer of its first request, a
    rename of ``textwrap.dedent`` (a fresh session: what a user waits for after opening)."""
    session = Session(command, root, settings)
    await session.start()
    t = target(root)
    session.open(t.path)
    await asyncio.wait_for(
        session.client.text_document_rename_async(rename_params(t, "dedent_first")), TIMEOUT
    )
    took = time.perf_counter() - session.spawned
    await session.stop()
    return took


PYLSP_SETTINGS = {
    "pylsp": {
        "plugins": {
            "pylsp_rope": {"rename": True},
            "rope_rename": {"enabled": False},
            "jedi_rename": {"enabled": False},
            "pyflakes": {"enabled": False},
            "pycodestyle": {"enabled": False},
            "mccabe": {"enabled": False},
            "pydocstyle": {"enabled": False},
            "pylint": {"enabled": False},
            "autopep8": {"enabled": False},
            "yapf": {"enabled": False},
        }
    }
}


async def bench_pylsp_rope(root: Path, peers: Path, repeat: int) -> Figures:
    fig = Figures("pylsp-rope")
    session = Session([str(peers / "bin" / "pylsp")], root, PYLSP_SETTINGS)
    await session.start()
    fig.values["initialize"] = session.initialize_seconds
    t = target(root)
    session.open(t.path)
    client = session.client
    at = types.Range(t.def_name, t.def_name)
    # pylsp-rope computes each listed action (a whole inline among them): keep repeats low
    first, warm, actions = await first_and_warm(
        lambda i: client.text_document_code_action_async(code_action_params(t, at)),
        max(1, repeat - 1),
    )
    fig.values.update({"code actions first": first, "code actions warm": warm})
    fig.notes.append(f"{len(actions or [])} code actions at the def")
    first, warm, edit = await first_and_warm(
        lambda i: client.text_document_rename_async(rename_params(t, f"dedent_{i}")), repeat
    )
    fig.values.update({"rename first": first, "rename warm": warm})
    fig.notes.append(f"rename edits {count_files(edit)} files")

    async def extract(i: int) -> Any:
        listed = await client.text_document_code_action_async(code_action_params(t, t.selection))
        chosen = next(
            a
            for a in listed or []
            if isinstance(a, types.Command | types.CodeAction)
            and "extract" in a.title.lower()
            and "method" in a.title.lower()
        )
        command = chosen.command if isinstance(chosen, types.CodeAction) else chosen
        assert command is not None and not isinstance(command, str)
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
        )
        return session.applied[-1] if session.applied else None

    try:
        _first, warm, _ = await first_and_warm(extract, max(1, repeat - 1))
        fig.values["extract method"] = warm
    except (StopIteration, AssertionError):
        fig.notes.append("no extract method action")
    await session.stop()
    return fig


async def bench_jedi(root: Path, peers: Path, repeat: int) -> Figures:
    fig = Figures("jedi-language-server")
    session = Session([str(peers / "bin" / "jedi-language-server")], root)
    await session.start()
    fig.values["initialize"] = session.initialize_seconds
    t = target(root)
    session.open(t.path)
    client = session.client
    at = types.Range(t.def_name, t.def_name)
    first, warm, actions = await first_and_warm(
        lambda i: client.text_document_code_action_async(code_action_params(t, at)), repeat
    )
    fig.values.update({"code actions first": first, "code actions warm": warm})
    fig.notes.append(f"{len(actions or [])} code actions at the def")
    first, warm, edit = await first_and_warm(
        lambda i: client.text_document_rename_async(rename_params(t, f"dedent_{i}")), repeat
    )
    fig.values.update({"rename first": first, "rename warm": warm})
    fig.notes.append(f"rename edits {count_files(edit)} files")
    _first, warm, listed = await first_and_warm(
        lambda i: client.text_document_code_action_async(code_action_params(t, t.selection)), repeat
    )
    if any("function" in a.title.lower() or "method" in a.title.lower() for a in listed or []):
        fig.values["extract method"] = warm  # jedi computes the edits while listing
    await session.stop()
    return fig


def bench_rope(root: Path, repeat: int, same_files_as_reks: bool) -> Figures:
    """rope called directly, with the same project settings as reks, given every file it
    can parse, or (``same_files_as_reks``) only those of them that contain the old name:
    the files reks hands it, so that the two do the same rope work."""
    import ast

    from rope.base.project import Project
    from rope.refactor.rename import Rename

    fig = Figures("rope (reks's files)" if same_files_as_reks else "rope (all files)")
    project = Project(
        str(root),
        ropefolder=None,
        save_objectdb=False,
        automatic_soa=False,
        perform_doa=False,
        validate_objectdb=False,
    )
    t = target(root)
    resource = project.get_resource("textwrap.py")
    offset = t.text.index("def dedent") + 4
    # the files rope can parse (as reks does; one unparsable file aborts a rope rename)
    files = []
    for f in project.get_python_files():
        try:
            text = f.read()
            if same_files_as_reks and "dedent" not in text:
                continue
            ast.parse(text)
            files.append(f)
        except (SyntaxError, ValueError, UnicodeDecodeError):
            pass
    fig.notes.append(f"rope is given {len(files)} files")

    def once(i: int) -> float:
        start = time.perf_counter()
        Rename(project, resource, offset).get_changes(f"dedent_{i}", resources=files)
        return time.perf_counter() - start

    fig.values["rename first"] = once(0)
    fig.values["rename warm"] = statistics.median(once(i) for i in range(1, repeat + 1))
    project.close()
    return fig


def report(figs: list[Figures]) -> None:
    keys = [
        "initialize",
        "start to rename",
        "code actions first",
        "code actions warm",
        "rename first",
        "rename warm",
        "extract method",
    ]
    reks = next(f for f in figs if f.name == "reks")
    width = max(len(f.name) for f in figs) + 2
    print(f"\n{'seconds':<20}" + "".join(f"{f.name:>{width}}" for f in figs))
    for key in keys:
        cells = []
        for fig in figs:
            value = fig.values.get(key)
            cells.append(f"{value:>{width}.4f}" if value is not None else f"{'-':>{width}}")
        print(f"{key:<20}" + "".join(cells))
    print("\nratios (peer / reks; > 1 means reks is faster):")
    for fig in figs:
        if fig is reks:
            continue
        for key in keys:
            ours, theirs = reks.values.get(key), fig.values.get(key)
            if ours and theirs:
                print(f"  {fig.name:<22} {key:<20} {theirs / ours:10.1f}x")
    rope = next((f for f in figs if f.name == "rope (reks's files)"), None)
    if rope and rope.values.get("rename warm") and reks.values.get("rename warm"):
        over = reks.values["rename warm"] / rope.values["rename warm"] - 1  # type: ignore[operator]
        print(f"\nreks warm rename vs rope given the same files: {over:+.1%} (goal: at most +30%)")
    started = reks.values.get("start to rename")
    if started is not None:
        print(f"reks process start to first rename result: {started:.2f} s (goal: under 2 s)")
    for fig in figs:
        for note in fig.notes:
            print(f"  {fig.name}: {note}")


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages (figures under load are doubtful)."""
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


async def main_async(args: argparse.Namespace) -> None:
    started_load = load_average()
    compile_reks()
    workdir = Path(tempfile.mkdtemp(prefix="reks-bench-"))
    try:
        root = copy_stdlib(workdir, args.full)
        count = sum(1 for _ in root.rglob("*.py"))
        print(f"standard library copy: {root} ({count} Python files)")
        reks_command = [sys.executable, "-m", "lsp_server"]
        figs = [await bench_reks(root, args.repeat)]
        figs[0].values["start to rename"] = await start_to_first_rename(reks_command, root)
        print("reks done", flush=True)
        figs.append(bench_rope(root, args.repeat, same_files_as_reks=True))
        figs.append(bench_rope(root, args.repeat, same_files_as_reks=False))
        print("rope done", flush=True)
        if not args.no_peers:
            peers = ensure_peers(Path(args.peers))
            pylsp = [str(peers / "bin" / "pylsp")]
            figs.append(await bench_pylsp_rope(root, peers, args.repeat))
            figs[-1].values["start to rename"] = await start_to_first_rename(
                pylsp, root, PYLSP_SETTINGS
            )
            print("pylsp-rope done", flush=True)
            jedi = [str(peers / "bin" / "jedi-language-server")]
            figs.append(await bench_jedi(root, peers, args.repeat))
            figs[-1].values["start to rename"] = await start_to_first_rename(jedi, root)
            print("jedi-language-server done", flush=True)
        report(figs)
        print(f"load average at the end: {load_average()} (at the start: {started_load})")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    global TIMEOUT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm repeats (median)")
    parser.add_argument("--full", action="store_true", help="include the test suites")
    parser.add_argument("--peers", default="/tmp/reks-bench-peers", help="venv for the peers")
    parser.add_argument("--no-peers", action="store_true", help="reks and rope only")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per request")
    args = parser.parse_args()
    TIMEOUT = args.timeout
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()

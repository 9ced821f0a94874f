// Which Python runs the server, and what to tell the user when reks is missing there.
// Pure: no vscode import, so mocha tests it without an editor.

export type InterpreterSource = "python-extension" | "setting" | "default";

export interface Interpreter {
  /** Executable to spawn. */
  command: string;
  /** Where the choice came from, shown in the output channel and the error message. */
  source: InterpreterSource;
}

/** The module the server runs as: `python -m lsp_server` serves over stdio. */
export const SERVER_MODULE = "lsp_server";

export const DEFAULT_PYTHON = "python3";

function nonEmpty(value: string | undefined): value is string {
  return typeof value === "string" && value.trim().length > 0;
}

/**
 * The interpreter selected in the Python extension wins, then the `reks.server.pythonPath`
 * setting, then `python3` from PATH.
 */
export function chooseInterpreter(
  fromPythonExtension: string | undefined,
  fromSetting: string | undefined,
): Interpreter {
  if (nonEmpty(fromPythonExtension)) {
    return { command: fromPythonExtension.trim(), source: "python-extension" };
  }
  if (nonEmpty(fromSetting)) {
    return { command: fromSetting.trim(), source: "setting" };
  }
  return { command: DEFAULT_PYTHON, source: "default" };
}

/** Arguments that start the language server with the chosen interpreter. */
export function serverArgs(): string[] {
  return ["-m", SERVER_MODULE];
}

/** Arguments of the probe that tells whether reks can be imported by the interpreter (and
 * the interpreter's own pytest, which the bundled copy leaves to the project). */
export function probeArgs(): string[] {
  return ["-c", `import ${SERVER_MODULE}.cli, pygls, rope, pytest`];
}

/** The server shipped inside the extension (vscode-client/scripts/bundle.py). */
export interface Bundle {
  /** Folder of reks and its dependencies, for PYTHONPATH. */
  libs: string;
  /** The reks wheel, which `pip install` accepts (reks is not on the package index). */
  wheel?: string;
}

/** The environment that lets `python` import the bundled reks (after its own PYTHONPATH). */
export function bundledEnv(bundle: Bundle, existing: string | undefined, delimiter = ":"): { PYTHONPATH: string } {
  return { PYTHONPATH: existing ? `${existing}${delimiter}${bundle.libs}` : bundle.libs };
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=+-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, "\\$1")}"`;
}

/** The command that installs reks into exactly this interpreter: the bundled wheel, else
 * a clone of reks (reks is not on the package index, `pip install reks` fails). */
export function installCommand(python: string, bundle?: Bundle): string {
  const source = bundle?.wheel ? shellQuote(bundle.wheel) : "-e /path/to/a/clone/of/reks";
  return `${shellQuote(python)} -m pip install ${source}`;
}

/** Whether `installCommand` names something that installs as it is (not a placeholder). */
export function canInstall(bundle?: Bundle): boolean {
  return Boolean(bundle?.wheel);
}

export type ProbeOutcome =
  | { kind: "ok" }
  | { kind: "not-installed"; module: string }
  | { kind: "no-interpreter" }
  | { kind: "failed"; detail: string };

/**
 * Classify the probe's result. `spawnError` is the errno code when the process could not
 * start at all (ENOENT: no such interpreter).
 */
export function classifyProbe(
  exitCode: number | null,
  stderr: string,
  spawnError?: string,
): ProbeOutcome {
  if (spawnError === "ENOENT" || spawnError === "EACCES") {
    return { kind: "no-interpreter" };
  }
  if (exitCode === 0) {
    return { kind: "ok" };
  }
  const missing = /No module named ['"]?([A-Za-z0-9_.]+)/.exec(stderr);
  if (missing) {
    return { kind: "not-installed", module: missing[1] };
  }
  const lastLine = stderr.trim().split(/\r?\n/).pop() ?? "";
  return { kind: "failed", detail: lastLine || `exit code ${exitCode}` };
}

/** The message shown for a probe that did not succeed (with the bundle on PYTHONPATH when
 * there is one: then only what the bundle cannot bring is missing). */
export function probeMessage(python: Interpreter, outcome: ProbeOutcome, bundle?: Bundle): string | undefined {
  const where =
    python.source === "python-extension"
      ? "the interpreter selected in the Python extension"
      : python.source === "setting"
        ? "the interpreter set in reks.server.pythonPath"
        : "python3 from PATH";
  switch (outcome.kind) {
    case "ok":
      return undefined;
    case "no-interpreter":
      return `reks: cannot run ${python.command} (${where}). Select an interpreter or set reks.server.pythonPath.`;
    case "not-installed":
      if (outcome.module === "pytest") {
        return (
          `reks runs your tests with the pytest of ${python.command} (${where}), which has none. ` +
          `Install it with: ${shellQuote(python.command)} -m pip install pytest`
        );
      }
      return (
        `reks is not installed in ${python.command} (${where}; missing module ${outcome.module})` +
        (bundle ? " and the copy bundled with the extension cannot run there" : "") +
        `. Install it with: ${installCommand(python.command, bundle)}`
      );
    case "failed":
      return `reks: ${python.command} (${where}) cannot import reks: ${outcome.detail}`;
  }
}

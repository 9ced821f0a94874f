// Which interpreter runs the server, whether reks is installed in it, and what the user is
// told (with the fix) when it is not.
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";

import {
  Bundle,
  Interpreter,
  ProbeOutcome,
  bundledEnv,
  canInstall,
  chooseInterpreter,
  classifyProbe,
  installCommand,
  probeArgs,
  probeMessage,
} from "./interpreter";
import { config, workspaceRoot } from "./prompts";
import { hasPythonExtension, selectedInterpreter } from "./python";

export async function serverInterpreter(): Promise<Interpreter> {
  const fromExtension = await selectedInterpreter(workspaceRoot());
  return chooseInterpreter(fromExtension, config().get<string>("server.pythonPath"));
}

/** The server bundled into this extension, when the .vsix has one. */
export function findBundle(extensionPath: string): Bundle | undefined {
  const bundled = path.join(extensionPath, "bundled");
  const libs = path.join(bundled, "libs");
  if (!fs.existsSync(path.join(libs, "lsp_server"))) {
    return undefined;
  }
  const wheel = fs.readdirSync(bundled).find((name) => /^reks-.*\.whl$/.test(name));
  return { libs, wheel: wheel ? path.join(bundled, wheel) : undefined };
}

function probeOutcome(python: Interpreter, env?: NodeJS.ProcessEnv): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const options = { timeout: 30000, env: env ? { ...process.env, ...env } : process.env };
    execFile(python.command, probeArgs(), options, (error, _stdout, stderr) => {
      const spawnError = (error as NodeJS.ErrnoException | null)?.code;
      const exitCode = error ? (typeof spawnError === "number" ? spawnError : 1) : 0;
      resolve(classifyProbe(exitCode, String(stderr), typeof spawnError === "string" ? spawnError : undefined));
    });
  });
}

export interface LaunchPlan {
  /** Why the server cannot start with this interpreter (shown with an install hint). */
  problem?: string;
  /** Extra environment of the server: PYTHONPATH with the bundled reks. */
  env?: { PYTHONPATH: string };
}

/**
 * How `python` runs the server: with its own reks when it has one, else with the bundled
 * copy on PYTHONPATH (as the black and isort extensions run their bundled tools).
 */
export async function launchPlan(python: Interpreter, bundle: Bundle | undefined): Promise<LaunchPlan> {
  const own = await probeOutcome(python);
  if (own.kind === "ok") {
    return {};
  }
  if (own.kind !== "not-installed" || own.module === "pytest" || !bundle) {
    return { problem: probeMessage(python, own, bundle) };
  }
  const env = bundledEnv(bundle, process.env.PYTHONPATH, path.delimiter);
  const withBundle = await probeOutcome(python, env);
  return withBundle.kind === "ok" ? { env } : { problem: probeMessage(python, withBundle, bundle) };
}

/** Say that reks is missing, with buttons that install it or pick another interpreter. */
export async function reportMissing(
  output: vscode.OutputChannel,
  python: Interpreter,
  message: string,
  bundle: Bundle | undefined,
): Promise<void> {
  output.appendLine(message);
  const copy = "Copy pip command";
  const install = "Install in terminal";
  const select = "Select interpreter";
  // Without the bundled wheel the command names a clone of reks: nothing to run as it is.
  const buttons = [...(canInstall(bundle) ? [install] : []), copy, ...(hasPythonExtension() ? [select] : [])];
  const answer = await vscode.window.showErrorMessage(message, ...buttons);
  if (answer === copy) {
    await vscode.env.clipboard.writeText(installCommand(python.command, bundle));
  } else if (answer === install) {
    const terminal = vscode.window.createTerminal("reks: install");
    terminal.show();
    terminal.sendText(installCommand(python.command, bundle));
  } else if (answer === select) {
    await vscode.commands.executeCommand("python.setInterpreter");
  }
}

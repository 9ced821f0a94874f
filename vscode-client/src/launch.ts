// Which interpreter runs the server, whether reks is installed in it, and what the user is
// told (with the fix) when it is not.
import { execFile } from "child_process";
import * as vscode from "vscode";

import { Interpreter, chooseInterpreter, classifyProbe, installCommand, probeArgs, probeMessage } from "./interpreter";
import { config, workspaceRoot } from "./prompts";
import { hasPythonExtension, selectedInterpreter } from "./python";

export async function serverInterpreter(): Promise<Interpreter> {
  const fromExtension = await selectedInterpreter(workspaceRoot());
  return chooseInterpreter(fromExtension, config().get<string>("server.pythonPath"));
}

/** Why `python` cannot run the server, or undefined when it can. */
export function probe(python: Interpreter): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python.command, probeArgs(), { timeout: 30000 }, (error, _stdout, stderr) => {
      const spawnError = (error as NodeJS.ErrnoException | null)?.code;
      const exitCode = error ? (typeof spawnError === "number" ? spawnError : 1) : 0;
      const outcome = classifyProbe(exitCode, String(stderr), typeof spawnError === "string" ? spawnError : undefined);
      resolve(probeMessage(python, outcome));
    });
  });
}

/** Say that reks is missing, with buttons that install it or pick another interpreter. */
export async function reportMissing(output: vscode.OutputChannel, python: Interpreter, message: string): Promise<void> {
  output.appendLine(message);
  const copy = "Copy pip command";
  const install = "Install in terminal";
  const select = "Select interpreter";
  const buttons = hasPythonExtension() ? [install, copy, select] : [install, copy];
  const answer = await vscode.window.showErrorMessage(message, ...buttons);
  if (answer === copy) {
    await vscode.env.clipboard.writeText(installCommand(python.command));
  } else if (answer === install) {
    const terminal = vscode.window.createTerminal("reks: install");
    terminal.show();
    terminal.sendText(installCommand(python.command));
  } else if (answer === select) {
    await vscode.commands.executeCommand("python.setInterpreter");
  }
}

// VS Code entry point: the server manager, the palette commands and the interpreter watch.
// The server owns names, exclusions and status texts (see serverConfig.ts); the modules here
// add only what a client must do itself (prompts, confirmation, status bar).
import * as vscode from "vscode";

import { PALETTE_CHOICES, RUN_AFFECTED_TESTS, commandLabel } from "./commands";
import { RENAME_EXTRACTED, renameExtracted } from "./prompts";
import { onInterpreterChange } from "./python";
import { ServerManager } from "./serverManager";
import { SECTION } from "./settings";
import { ReksTestView } from "./testController";
import { testRunSummary } from "./testRun";

let manager: ServerManager | undefined;

/** The counts of a "Run affected tests"; failures (Errors on the failing tests) open in Problems. */
async function showTestRun(result: unknown): Promise<void> {
  const summary = testRunSummary(result);
  if (!summary) {
    return;
  }
  const text = `reks: affected tests: ${summary.message}`;
  if (summary.failed === 0) {
    void vscode.window.showInformationMessage(text);
    return;
  }
  const open = "Show failures";
  if ((await vscode.window.showWarningMessage(text, open)) === open) {
    await vscode.commands.executeCommand("workbench.actions.view.problems");
  }
}

function paletteCommands(m: ServerManager, output: vscode.OutputChannel): vscode.Disposable[] {
  return [
    ...PALETTE_CHOICES.map((choice) =>
      vscode.commands.registerCommand(choice.paletteId, async () => {
        const result = await m.runChoice(choice);
        if (choice === RUN_AFFECTED_TESTS) {
          await showTestRun(result);
        }
        return result;
      }),
    ),
    vscode.commands.registerCommand("reks.editor.runServerCommand", async () => {
      const items = m.serverCommands().map((c) => ({ label: commandLabel(c), description: c }));
      const pick = await vscode.window.showQuickPick(items, { title: "reks: server command" });
      if (pick) {
        await m.runServerCommand(pick.description, []);
      }
    }),
    vscode.commands.registerCommand("reks.editor.restartServer", () => m.restart()),
    vscode.commands.registerCommand("reks.editor.showOutput", () => output.show()),
    vscode.commands.registerCommand(RENAME_EXTRACTED, renameExtracted),
  ];
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("reks");
  const status = vscode.window.createStatusBarItem("reks.status", vscode.StatusBarAlignment.Left, 50);
  status.name = "reks tests";
  manager = new ServerManager(context, output, status);
  const m = manager;
  const tests = new ReksTestView(() => m.runChoice(RUN_AFFECTED_TESTS));
  m.statusListeners.push((payload) => tests.update(payload));
  context.subscriptions.push(
    output,
    status,
    tests,
    m,
    ...paletteCommands(m, output),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.server.pythonPath`)) {
        void m.restart();
      }
    }),
  );
  const watcher = await onInterpreterChange(() => {
    output.appendLine("reks: the Python interpreter changed; restarting the server");
    void m.restart();
  });
  if (watcher) {
    context.subscriptions.push(watcher);
  }
  await m.start();
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}

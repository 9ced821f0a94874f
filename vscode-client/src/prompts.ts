// What the extension asks the user: confirmation of large edits, the destination of a move,
// and the rename box after an extract.
import * as vscode from "vscode";

import { destinationArgument, destinations, packageDestinations } from "./destinations";
import { EditSize, confirmationMessage, needsConfirmation } from "./edits";
import { nearestOccurrence } from "./names";
import { Exclusions, excludeGlob } from "./serverConfig";
import { SECTION } from "./settings";

export const RENAME_EXTRACTED = "reks.editor.renameExtracted";

export function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

export function workspaceRoot(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

/** Confirm a large edit with a modal dialog; small edits pass without asking. */
export async function confirmLarge(what: string, size: EditSize): Promise<boolean> {
  const threshold = config().get<number>("client.confirmEditsAboveFiles", 10);
  if (!needsConfirmation(size, threshold)) {
    return true;
  }
  const apply = "Apply";
  const answer = await vscode.window.showWarningMessage(confirmationMessage(what, size), { modal: true }, apply);
  return answer === apply;
}

export function vscodeEditSize(edit: vscode.WorkspaceEdit): EditSize {
  let textEdits = 0;
  for (const [, edits] of edit.entries()) {
    textEdits += edits.length;
  }
  return { files: edit.size, textEdits, resourceOperations: 0 };
}

/**
 * Quick pick of the workspace's modules (or packages, for a module move) outside the folders
 * the server says are not project code; typing a dotted name or a path picks a new one.
 * Returns the root-relative path the server expects.
 */
export async function pickDestination(
  sourceUri: vscode.Uri | undefined,
  folder: boolean,
  exclusions: Exclusions | undefined,
): Promise<string | undefined> {
  const files = await vscode.workspace.findFiles("**/*.py", excludeGlob(exclusions), 5000);
  const relative = files.map((f) => vscode.workspace.asRelativePath(f, false));
  const current = sourceUri ? vscode.workspace.asRelativePath(sourceUri, false) : undefined;
  const found = folder ? packageDestinations(relative, current, exclusions) : destinations(relative, current, exclusions);
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem>();
  pick.title = folder ? "Move module into package" : "Move to module";
  pick.placeholder = "Pick a destination, or type a dotted name or a path";
  pick.items = found.map((d) => ({ label: d.module, description: d.path }));
  return new Promise<string | undefined>((resolve) => {
    let done = false;
    const finish = (value: string | undefined): void => {
      if (!done) {
        done = true;
        resolve(value);
        pick.dispose();
      }
    };
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0];
      finish(chosen ? chosen.description : destinationArgument(pick.value, folder));
    });
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
}

/** The command behind RENAME_EXTRACTED: a rename box on the new name, then `then`. */
export async function renameExtracted(uri: string, name: string, offset: number, then?: vscode.Command): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const editor = await vscode.window.showTextDocument(document);
  const at = nearestOccurrence(document.getText(), name, offset);
  if (at !== undefined) {
    const start = document.positionAt(at);
    editor.selection = new vscode.Selection(start, start);
    editor.revealRange(new vscode.Range(start, start));
    await vscode.commands.executeCommand("editor.action.rename");
  }
  if (then) {
    await vscode.commands.executeCommand(then.command, ...(then.arguments ?? []));
  }
}

// The client options of the language client: documents, crash restarts, and the middleware
// that adds the client-side parts of refactorings (confirmation, prompts, rename after extract).
import * as vscode from "vscode";
import {
  ApplyWorkspaceEditRequest,
  CloseAction,
  ErrorAction,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
} from "vscode-languageclient/node";
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from "vscode-languageclient";

import { editSize } from "./edits";
import { confirmLarge, vscodeEditSize } from "./prompts";
import { Json } from "./settings";

/** What the options need from the extension. */
export interface ClientHost {
  output: vscode.OutputChannel;
  settings(): { [key: string]: Json };
  /** Record a crash; false when the server crashed too often to start again. */
  onCrash(): boolean;
  /** Fill in what the server leaves to the client (a move's destination). */
  completeArguments(command: string, args: unknown[]): Promise<unknown[]>;
  /** A code action was listed for `uri` at `offset` (where its code is). */
  listed(action: vscode.CodeAction, uri: vscode.Uri, offset: number): void;
  /** A code action was resolved: add the client's follow-up (rename after extract). */
  resolved(item: vscode.CodeAction, resolved: vscode.CodeAction): Promise<void>;
}

export function clientOptions(host: ClientHost): LanguageClientOptions {
  return {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    outputChannel: host.output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: host.settings(),
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        if (host.onCrash()) {
          host.output.appendLine("reks: the server stopped; starting it again");
          return { action: CloseAction.Restart, handled: true };
        }
        return {
          action: CloseAction.DoNotRestart,
          message: "reks: the server crashed 5 times in 3 minutes and was not started again. See the reks output.",
        };
      },
    },
    middleware: {
      executeCommand: async (command, args, next) => next(command, await host.completeArguments(command, args)),
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        for (const action of actions ?? []) {
          if (action instanceof vscode.CodeAction) {
            host.listed(action, document.uri, document.offsetAt(range.start));
          }
        }
        return actions;
      },
      resolveCodeAction: async (item, token, next) => {
        const resolved = (await next(item, token)) ?? item;
        if (resolved.edit && !(await confirmLarge(resolved.title, vscodeEditSize(resolved.edit)))) {
          resolved.edit = undefined;
          resolved.command = undefined;
          return resolved;
        }
        await host.resolved(item, resolved);
        return resolved;
      },
      provideRenameEdits: async (document, position, newName, token, next) => {
        const edit = await next(document, position, newName, token);
        if (edit && !(await confirmLarge(`Renaming to ${newName}`, vscodeEditSize(edit)))) {
          throw new Error("Rename cancelled.");
        }
        return edit;
      },
    },
  };
}

type ApplyEditHandler = (params: ApplyWorkspaceEditParams) => Promise<ApplyWorkspaceEditResult>;

/**
 * Server-initiated edits (the command fallback of code actions) get the same confirmation as
 * resolved ones; the client's own handler (version checks included) then applies them.
 */
export function confirmServerEdits(client: LanguageClient): vscode.Disposable {
  const builtIn = (client as unknown as { handleApplyWorkspaceEdit: ApplyEditHandler }).handleApplyWorkspaceEdit.bind(client);
  return client.onRequest(ApplyWorkspaceEditRequest.type, async (params) => {
    if (!(await confirmLarge(params.label ?? "The refactoring", editSize(params.edit)))) {
      return { applied: false, failureReason: "cancelled by the user" };
    }
    return builtIn(params);
  });
}

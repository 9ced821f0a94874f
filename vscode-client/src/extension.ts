// VS Code glue: starts the reks server with the right interpreter, keeps it running, and
// supplies the client-side parts of its refactorings (prompts, confirmation, status bar).
import { execFile } from "child_process";
import * as vscode from "vscode";
import {
  ApplyWorkspaceEditRequest,
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from "vscode-languageclient";

import {
  CommandChoice,
  PALETTE_CHOICES,
  RUN_AFFECTED_TESTS,
  commandLabel,
  findServerCommand,
  isMoveCommand,
  moveArgumentNeedingDestination,
} from "./commands";
import { destinationArgument, destinations, packageDestinations } from "./destinations";
import { EditSize, confirmationMessage, editSize, needsConfirmation } from "./edits";
import {
  Interpreter,
  chooseInterpreter,
  classifyProbe,
  installCommand,
  probeArgs,
  probeMessage,
  serverArgs,
} from "./interpreter";
import { nearestOccurrence } from "./names";
import { hasPythonExtension, onInterpreterChange, selectedInterpreter } from "./python";
import { RestartPolicy } from "./restart";
import { SECTION, contributedKeys, serverOptions } from "./settings";
import { STATUS_NOTIFICATION, parseStatus, statusText, statusTooltip } from "./status";

const RENAME_EXTRACTED = "reks.editor.renameExtracted";

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

function workspaceRoot(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

/** Confirm a large edit with a modal dialog; small edits pass without asking. */
async function confirmLarge(what: string, size: EditSize): Promise<boolean> {
  const threshold = config().get<number>("client.confirmEditsAboveFiles", 10);
  if (!needsConfirmation(size, threshold)) {
    return true;
  }
  const apply = "Apply";
  const answer = await vscode.window.showWarningMessage(confirmationMessage(what, size), { modal: true }, apply);
  return answer === apply;
}

function vscodeEditSize(edit: vscode.WorkspaceEdit): EditSize {
  let textEdits = 0;
  for (const [, edits] of edit.entries()) {
    textEdits += edits.length;
  }
  return { files: edit.size, textEdits, resourceOperations: 0 };
}

/**
 * Quick pick of the workspace's modules (or packages, for a module move); typing a dotted
 * name or a path picks a new one. Returns the root-relative path the server expects.
 */
async function pickDestination(sourceUri: vscode.Uri | undefined, folder: boolean): Promise<string | undefined> {
  const files = await vscode.workspace.findFiles("**/*.py", "**/{.venv,venv,node_modules,.git,.reks}/**", 5000);
  const relative = files.map((f) => vscode.workspace.asRelativePath(f, false));
  const current = sourceUri ? vscode.workspace.asRelativePath(sourceUri, false) : undefined;
  const found = folder ? packageDestinations(relative, current) : destinations(relative, current);
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

/** What the extension remembers about a code action between provide and resolve. */
interface ActionOrigin {
  uri: vscode.Uri;
  offset: number;
}

type ApplyEditHandler = (params: ApplyWorkspaceEditParams) => Promise<ApplyWorkspaceEditResult>;

/**
 * Server-initiated edits (the command fallback of code actions) get the same confirmation as
 * resolved ones; the client's own handler (version checks included) then applies them.
 */
function confirmServerEdits(client: LanguageClient): vscode.Disposable {
  const builtIn = (client as unknown as { handleApplyWorkspaceEdit: ApplyEditHandler }).handleApplyWorkspaceEdit.bind(client);
  return client.onRequest(ApplyWorkspaceEditRequest.type, async (params) => {
    if (!(await confirmLarge(params.label ?? "The refactoring", editSize(params.edit)))) {
      return { applied: false, failureReason: "cancelled by the user" };
    }
    return builtIn(params);
  });
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly restarts = new RestartPolicy();
  private readonly origins = new WeakMap<vscode.CodeAction, ActionOrigin>();
  private readonly disposables: vscode.Disposable[] = [];
  private starting: Promise<void> | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
    private readonly status: vscode.StatusBarItem,
  ) {}

  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  async start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  async restart(): Promise<void> {
    this.restarts.reset();
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.appendLine(`reks: stopping the server failed: ${String(err)}`);
      }
    }
  }

  dispose(): void {
    void this.stop();
  }

  private async interpreter(): Promise<Interpreter> {
    const fromExtension = await selectedInterpreter(workspaceRoot());
    return chooseInterpreter(fromExtension, config().get<string>("server.pythonPath"));
  }

  private probe(python: Interpreter): Promise<string | undefined> {
    return new Promise((resolve) => {
      execFile(python.command, probeArgs(), { timeout: 30000 }, (error, _stdout, stderr) => {
        const spawnError = (error as NodeJS.ErrnoException | null)?.code;
        const exitCode = error ? (typeof spawnError === "number" ? spawnError : 1) : 0;
        const outcome = classifyProbe(exitCode, String(stderr), typeof spawnError === "string" ? spawnError : undefined);
        resolve(probeMessage(python, outcome));
      });
    });
  }

  private async reportMissing(python: Interpreter, message: string): Promise<void> {
    this.output.appendLine(message);
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

  private serverSettings(): ReturnType<typeof serverOptions> {
    const keys = contributedKeys(this.context.extension.packageJSON);
    const section = config();
    return serverOptions(keys, (key) => section.get(key));
  }

  private async doStart(): Promise<void> {
    const python = await this.interpreter();
    this.output.appendLine(`reks: starting ${python.command} ${serverArgs().join(" ")} (${python.source})`);
    const problem = await this.probe(python);
    if (problem) {
      void this.reportMissing(python, problem);
      return;
    }
    const cwd = workspaceRoot()?.fsPath;
    const serverOptionsSpec: ServerOptions = {
      command: python.command,
      // No `transport`: with TransportKind.stdio the client would append `--stdio`, which
      // `python -m lsp_server` does not take (it serves over stdio anyway).
      args: serverArgs(),
      options: cwd ? { cwd } : {},
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
      ],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: this.serverSettings(),
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => {
          if (this.restarts.onCrash(Date.now())) {
            this.output.appendLine("reks: the server stopped; starting it again");
            return { action: CloseAction.Restart, handled: true };
          }
          return {
            action: CloseAction.DoNotRestart,
            message: "reks: the server crashed 5 times in 3 minutes and was not started again. See the reks output.",
          };
        },
      },
      middleware: {
        executeCommand: async (command, args, next) => next(command, await this.completeArguments(command, args)),
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          for (const action of actions ?? []) {
            if (action instanceof vscode.CodeAction) {
              this.origins.set(action, { uri: document.uri, offset: document.offsetAt(range.start) });
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
          this.addRenameAfterExtract(item, resolved);
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
    const client = new LanguageClient("reks", "reks", serverOptionsSpec, clientOptions);
    this.client = client;
    this.disposables.push(
      client.onNotification(STATUS_NOTIFICATION, (payload: unknown) => this.showStatus(payload)),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(SECTION) && this.running) {
          void this.running.sendNotification("workspace/didChangeConfiguration", {
            settings: { [SECTION]: this.serverSettings() },
          });
        }
      }),
    );
    try {
      await client.start();
      this.disposables.push(confirmServerEdits(client));
      await vscode.commands.executeCommand("setContext", "reks.serverRunning", true);
    } catch (err) {
      this.output.appendLine(`reks: the server did not start: ${String(err)}`);
      void vscode.window.showErrorMessage(`reks: the server did not start (${python.command}). See the reks output.`);
    }
  }

  /** Fill in what the server leaves to the client: a move's destination, the active file. */
  private async completeArguments(command: string, args: unknown[]): Promise<unknown[]> {
    if (isMoveCommand(command)) {
      const target = moveArgumentNeedingDestination(args);
      if (target) {
        const source = typeof target.uri === "string" ? vscode.Uri.parse(target.uri) : undefined;
        const nested = target.args as Record<string, unknown> | undefined;
        const destination = await pickDestination(source, target.module === true || nested?.module === true);
        if (!destination) {
          throw new Error("Move cancelled: no destination.");
        }
        return [{ ...target, destination }, ...args.slice(1)];
      }
    }
    return args;
  }

  /** After an extract, start a rename on the new name where the extracted code was. */
  private addRenameAfterExtract(item: vscode.CodeAction, resolved: vscode.CodeAction): void {
    const kind = (resolved.kind ?? item.kind)?.value ?? "";
    const origin = this.origins.get(item);
    if (!origin || !resolved.edit || !kind.startsWith("refactor.extract")) {
      return;
    }
    if (!config().get<boolean>("client.renameAfterExtract", true)) {
      return;
    }
    const key = kind.startsWith("refactor.extract.variable") ? "extractedVariable" : "extractedMethod";
    const name = config().get<string>(`defaultNames.${key}`, key === "extractedVariable" ? "extracted_variable" : "extracted_method");
    const then = resolved.command;
    resolved.command = {
      title: "Rename the extracted name",
      command: RENAME_EXTRACTED,
      arguments: [origin.uri.toString(), name, origin.offset, then],
    };
  }

  private showStatus(payload: unknown): void {
    const status = parseStatus(payload);
    if (!status || !config().get<boolean>("client.statusBar", true)) {
      return;
    }
    this.status.text = statusText(status);
    this.status.tooltip = statusTooltip(status);
    this.status.command = RUN_AFFECTED_TESTS.paletteId;
    this.status.show();
  }

  /** Server commands the running server advertises. */
  serverCommands(): string[] {
    const provider = this.running?.initializeResult?.capabilities.executeCommandProvider;
    return provider?.commands ?? [];
  }

  async runServerCommand(command: string, args: unknown[] = []): Promise<unknown> {
    const client = this.running;
    if (!client) {
      void vscode.window.showErrorMessage("reks: the server is not running.");
      return undefined;
    }
    const completed = await this.completeArguments(command, args);
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: completed });
  }

  async runChoice(choice: CommandChoice): Promise<unknown> {
    const command = findServerCommand(this.serverCommands(), choice);
    if (!command) {
      void vscode.window.showErrorMessage(`reks: this server has no command for "${commandLabel(choice.paletteId)}".`);
      return undefined;
    }
    // No argument: the server's commands then work on every workspace folder.
    return this.runServerCommand(command, []);
  }
}

async function renameExtracted(uri: string, name: string, offset: number, then?: vscode.Command): Promise<void> {
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

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("reks");
  const status = vscode.window.createStatusBarItem("reks.status", vscode.StatusBarAlignment.Left, 50);
  status.name = "reks tests";
  manager = new ServerManager(context, output, status);
  const m = manager;
  context.subscriptions.push(
    output,
    status,
    m,
    ...PALETTE_CHOICES.map((choice) => vscode.commands.registerCommand(choice.paletteId, () => m.runChoice(choice))),
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

// Starts the reks server with the right interpreter, keeps it running, and keeps what the
// server tells its clients (names, exclusions, status texts) for the prompts and the status bar.
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient, ServerOptions, State } from "vscode-languageclient/node";

import {
  CommandChoice,
  RUN_AFFECTED_TESTS,
  commandLabel,
  findServerCommand,
  isMoveCommand,
  moveArgumentNeedingDestination,
} from "./commands";
import { serverArgs } from "./interpreter";
import { findBundle, launchPlan, reportMissing, serverInterpreter } from "./launch";
import { ClientHost, clientOptions, confirmServerEdits } from "./middleware";
import { RENAME_EXTRACTED, config, pickDestination, workspaceRoot } from "./prompts";
import { RestartPolicy } from "./restart";
import {
  CLIENT_CONFIGURATION_COMMAND,
  ClientConfiguration,
  fromInitializeResult,
  parseClientConfiguration,
} from "./serverConfig";
import { SECTION, contributedKeys, serverOptions } from "./settings";
import { STATUS_NOTIFICATION, parseStatus, statusText, statusTooltip } from "./status";

/** What the extension remembers about a code action between provide and resolve. */
interface ActionOrigin {
  uri: vscode.Uri;
  offset: number;
}

export class ServerManager implements vscode.Disposable, ClientHost {
  private client: LanguageClient | undefined;
  private readonly restarts = new RestartPolicy();
  private readonly origins = new WeakMap<vscode.CodeAction, ActionOrigin>();
  private readonly disposables: vscode.Disposable[] = [];
  private starting: Promise<void> | undefined;
  /** What the running server told its clients; undefined until asked, or from an old server. */
  private serverConfig: ClientConfiguration | undefined;
  /** Called with each `reks/status` payload (the Testing view listens). */
  readonly statusListeners: Array<(payload: unknown) => void> = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.OutputChannel,
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
    this.serverConfig = undefined;
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

  settings(): ReturnType<typeof serverOptions> {
    const keys = contributedKeys(this.context.extension.packageJSON);
    const section = config();
    return serverOptions(keys, (key) => section.get(key));
  }

  onCrash(): boolean {
    return this.restarts.onCrash(Date.now());
  }

  listed(action: vscode.CodeAction, uri: vscode.Uri, offset: number): void {
    this.origins.set(action, { uri, offset });
  }

  private async doStart(): Promise<void> {
    const python = await serverInterpreter();
    this.output.appendLine(`reks: starting ${python.command} ${serverArgs().join(" ")} (${python.source})`);
    const bundle = findBundle(this.context.extensionPath);
    const plan = await launchPlan(python, bundle);
    if (plan.problem) {
      void reportMissing(this.output, python, plan.problem, bundle);
      return;
    }
    if (plan.env && bundle) {
      this.output.appendLine(
        `reks: reks is not installed in ${python.command}: running the copy bundled with the extension (${bundle.libs})`,
      );
    }
    const cwd = workspaceRoot()?.fsPath;
    const serverOptionsSpec: ServerOptions = {
      command: python.command,
      // No `transport`: with TransportKind.stdio the client would append `--stdio`, which
      // `python -m lsp_server` does not take (it serves over stdio anyway).
      args: serverArgs(),
      options: { ...(cwd ? { cwd } : {}), ...(plan.env ? { env: { ...process.env, ...plan.env } } : {}) },
    };
    const client = new LanguageClient("reks", "reks", serverOptionsSpec, clientOptions(this));
    this.client = client;
    this.disposables.push(
      client.onNotification(STATUS_NOTIFICATION, (payload: unknown) => {
        this.statusListeners.forEach((listener) => listener(payload));
        void this.showStatus(payload);
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(SECTION) && this.running) {
          // Default names may have changed: ask the server again when they are needed.
          this.serverConfig = undefined;
          void this.running.sendNotification("workspace/didChangeConfiguration", {
            settings: { [SECTION]: this.settings() },
          });
        }
      }),
    );
    try {
      await client.start();
      this.disposables.push(confirmServerEdits(client));
      await this.clientConfiguration();
      await vscode.commands.executeCommand("setContext", "reks.serverRunning", true);
    } catch (err) {
      this.output.appendLine(`reks: the server did not start: ${String(err)}`);
      void vscode.window.showErrorMessage(`reks: the server did not start (${python.command}). See the reks output.`);
    }
  }

  /**
   * What the server tells its clients: from the `reks.clientConfiguration` command when the
   * server has it (current settings), else from the initialize result; undefined from a
   * server that has neither.
   */
  async clientConfiguration(): Promise<ClientConfiguration | undefined> {
    const client = this.running;
    if (this.serverConfig || !client) {
      return this.serverConfig;
    }
    if (this.serverCommands().includes(CLIENT_CONFIGURATION_COMMAND)) {
      try {
        const params = { command: CLIENT_CONFIGURATION_COMMAND, arguments: [] };
        this.serverConfig = parseClientConfiguration(await client.sendRequest(ExecuteCommandRequest.type, params));
      } catch (err) {
        this.output.appendLine(`reks: ${CLIENT_CONFIGURATION_COMMAND} failed: ${String(err)}`);
      }
    }
    this.serverConfig ??= fromInitializeResult(client.initializeResult);
    return this.serverConfig;
  }

  /** Fill in what the server leaves to the client: a move's destination, the active file. */
  async completeArguments(command: string, args: unknown[]): Promise<unknown[]> {
    if (isMoveCommand(command)) {
      const target = moveArgumentNeedingDestination(args);
      if (target) {
        const source = typeof target.uri === "string" ? vscode.Uri.parse(target.uri) : undefined;
        const nested = target.args as Record<string, unknown> | undefined;
        const exclusions = (await this.clientConfiguration())?.exclusions;
        const destination = await pickDestination(source, target.module === true || nested?.module === true, exclusions);
        if (!destination) {
          throw new Error("Move cancelled: no destination.");
        }
        return [{ ...target, destination }, ...args.slice(1)];
      }
    }
    return args;
  }

  /** After an extract, start a rename on the new name where the extracted code was. */
  async resolved(item: vscode.CodeAction, resolved: vscode.CodeAction): Promise<void> {
    const kind = (resolved.kind ?? item.kind)?.value ?? "";
    const origin = this.origins.get(item);
    if (!origin || !resolved.edit || !kind.startsWith("refactor.extract")) {
      return;
    }
    if (!config().get<boolean>("client.renameAfterExtract", true)) {
      return;
    }
    const key = kind.startsWith("refactor.extract.variable") ? "extractedVariable" : "extractedMethod";
    // The server's name (it gave it); the setting only when the server does not say.
    const name = (await this.clientConfiguration())?.defaultNames[key] ?? config().get<string>(`defaultNames.${key}`);
    if (!name) {
      return;
    }
    const then = resolved.command;
    resolved.command = {
      title: "Rename the extracted name",
      command: RENAME_EXTRACTED,
      arguments: [origin.uri.toString(), name, origin.offset, then],
    };
  }

  private async showStatus(payload: unknown): Promise<void> {
    const status = parseStatus(payload);
    if (!status || !config().get<boolean>("client.statusBar", true)) {
      return;
    }
    const texts = (await this.clientConfiguration())?.status;
    const text = statusText(status, texts);
    if (text === undefined) {
      return;
    }
    this.status.text = text;
    this.status.tooltip = statusTooltip(status, texts);
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

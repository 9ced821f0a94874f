// The interpreter selected in the Python extension (ms-python.python), through its public API.
import * as vscode from "vscode";

interface EnvironmentPath {
  id: string;
  path: string;
}

interface ResolvedEnvironment {
  executable: { uri?: vscode.Uri };
}

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): EnvironmentPath;
  resolveEnvironment(environment: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
  onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
}

const PYTHON_EXTENSION = "ms-python.python";

async function environmentsApi(): Promise<PythonEnvironmentsApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    return api?.environments;
  } catch {
    // A broken Python extension must not keep reks from starting with the fallback.
    return undefined;
  }
}

export function hasPythonExtension(): boolean {
  return vscode.extensions.getExtension(PYTHON_EXTENSION) !== undefined;
}

/** The executable of the active environment for `resource`, when the extension has one. */
export async function selectedInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await environmentsApi();
  if (!api) {
    return undefined;
  }
  try {
    const active = api.getActiveEnvironmentPath(resource);
    const resolved = await api.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath ?? active.path;
  } catch {
    return undefined;
  }
}

/** Call `listener` when the user selects another interpreter in the Python extension. */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await environmentsApi();
  return api?.onDidChangeActiveEnvironmentPath(() => listener());
}

// Settings -> initializationOptions / didChangeConfiguration payload.
//
// The contributed settings in package.json are the single list: every `reks.*` key is sent to
// the server, nested by its dots (`reks.actions.extractMethod` -> {actions: {extractMethod}}),
// except the ones only the client uses.

export const SECTION = "reks";

/** Keys (below `reks.`) that configure the client itself and are not sent to the server. */
export const CLIENT_ONLY_PREFIXES = ["server.", "trace.", "client."];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isClientOnly(key: string): boolean {
  return CLIENT_ONLY_PREFIXES.some((prefix) => key.startsWith(prefix));
}

/** Keys below `reks.` contributed in package.json, in declaration order. */
export function contributedKeys(packageJson: unknown): string[] {
  const contributes = (packageJson as { contributes?: { configuration?: unknown } }).contributes;
  const sections = Array.isArray(contributes?.configuration)
    ? contributes.configuration
    : [contributes?.configuration];
  const keys: string[] = [];
  for (const section of sections) {
    const properties = (section as { properties?: Record<string, unknown> } | undefined)?.properties;
    for (const key of Object.keys(properties ?? {})) {
      if (key.startsWith(`${SECTION}.`)) {
        keys.push(key.slice(SECTION.length + 1));
      }
    }
  }
  return keys;
}

/**
 * Nest the settings the server reads. `get` returns the effective value of a key below
 * `reks.` (VS Code's WorkspaceConfiguration.get).
 */
export function serverOptions(keys: string[], get: (key: string) => unknown): { [key: string]: Json } {
  const root: { [key: string]: Json } = {};
  for (const key of keys) {
    if (isClientOnly(key)) {
      continue;
    }
    const value = get(key);
    if (value === undefined) {
      continue;
    }
    const parts = key.split(".");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const child = node[part];
      if (typeof child !== "object" || child === null || Array.isArray(child)) {
        node[part] = {};
      }
      node = node[part] as { [key: string]: Json };
    }
    node[parts[parts.length - 1]] = JSON.parse(JSON.stringify(value)) as Json;
  }
  return root;
}

// What the server tells its clients instead of letting them restate it: the names refactorings
// give to what they create, the folders that are not project code, and the status texts.
//
// The server serves it under `capabilities.experimental.reks` of the initialize result and as
// the result of the `reks.clientConfiguration` command (lsp_server/client_config.py). Status
// texts are templates: `{name}` is a count, `{name:singular:plural}` the count with its noun.

export const CLIENT_CONFIGURATION_COMMAND = "reks.clientConfiguration";
export const EXPERIMENTAL_KEY = "reks";

export interface Exclusions {
  /** Workspace globs (`**\/.venv/**`, `build/**`) of what is not project code. */
  globs: string[];
  /** Folder names excluded at any depth. */
  dirs: string[];
  /** Folder names excluded only directly below the workspace folder. */
  rootOnlyDirs: string[];
  /** Endings of excluded folder names (`.egg-info`). */
  dirSuffixes: string[];
}

export interface StatusTexts {
  text: string;
  tooltip: { skipped: string; noneAffected: string; affected: string; more: string; listed: number };
}

export interface ClientConfiguration {
  defaultNames: Record<string, string>;
  exclusions?: Exclusions;
  status?: StatusTexts;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : undefined;
}

function parseExclusions(value: unknown): Exclusions | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const [globs, dirs, rootOnlyDirs, dirSuffixes] = [value.globs, value.dirs, value.rootOnlyDirs, value.dirSuffixes].map(strings);
  return globs && dirs && rootOnlyDirs && dirSuffixes ? { globs, dirs, rootOnlyDirs, dirSuffixes } : undefined;
}

function parseStatusTexts(value: unknown): StatusTexts | undefined {
  if (!isRecord(value) || typeof value.text !== "string" || !isRecord(value.tooltip)) {
    return undefined;
  }
  const t = value.tooltip;
  const texts = [t.skipped, t.noneAffected, t.affected, t.more];
  if (!texts.every((s) => typeof s === "string") || typeof t.listed !== "number") {
    return undefined;
  }
  const [skipped, noneAffected, affected, more] = texts as string[];
  return { text: value.text, tooltip: { skipped, noneAffected, affected, more, listed: t.listed } };
}

/** Validate what the server sent; a malformed part is left out (the client then falls back). */
export function parseClientConfiguration(raw: unknown): ClientConfiguration | undefined {
  if (!isRecord(raw)) {
    return undefined;
  }
  const names = isRecord(raw.defaultNames) ? raw.defaultNames : {};
  const defaultNames: Record<string, string> = {};
  for (const [key, value] of Object.entries(names)) {
    if (typeof value === "string") {
      defaultNames[key] = value;
    }
  }
  return { defaultNames, exclusions: parseExclusions(raw.exclusions), status: parseStatusTexts(raw.status) };
}

/** The configuration in an initialize result (`capabilities.experimental.reks`), if any. */
export function fromInitializeResult(result: unknown): ClientConfiguration | undefined {
  const capabilities = isRecord(result) ? result.capabilities : undefined;
  const experimental = isRecord(capabilities) ? capabilities.experimental : undefined;
  return isRecord(experimental) ? parseClientConfiguration(experimental[EXPERIMENTAL_KEY]) : undefined;
}

/** One glob for `workspace.findFiles`' exclude argument, or undefined without exclusions. */
export function excludeGlob(exclusions: Exclusions | undefined): string | undefined {
  if (!exclusions || exclusions.globs.length === 0) {
    return undefined;
  }
  return exclusions.globs.length === 1 ? exclusions.globs[0] : `{${exclusions.globs.join(",")}}`;
}

/** Is a workspace-relative path (forward slashes) in a folder that is not project code? */
export function isExcludedPath(relativePath: string, exclusions: Exclusions | undefined): boolean {
  if (!exclusions) {
    return false;
  }
  const folders = relativePath.split("/").slice(0, -1);
  return folders.some(
    (name, index) =>
      exclusions.dirs.includes(name) ||
      exclusions.dirSuffixes.some((suffix) => name.endsWith(suffix)) ||
      (index === 0 && exclusions.rootOnlyDirs.includes(name)),
  );
}

const PLACEHOLDER = /\{(\w+)(?::([^:{}]*):([^:{}]*))?\}/g;

/** Fill a status template with counts: `{n}` -> `3`, `{n:test:tests}` -> `3 tests`. */
export function formatTemplate(template: string, counts: Record<string, number>): string {
  return template.replace(PLACEHOLDER, (whole: string, name: string, one?: string, many?: string) => {
    const count = counts[name];
    if (count === undefined) {
      return whole;
    }
    return one === undefined ? String(count) : `${count} ${count === 1 ? one : many}`;
  });
}

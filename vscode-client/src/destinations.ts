// Candidates for the destination of a move: the workspace's Python modules and packages.

import { Exclusions, isExcludedPath } from "./serverConfig";

export interface Destination {
  /** Dotted module name, e.g. `pkg.util`. */
  module: string;
  /** Path relative to the workspace folder, with forward slashes. */
  path: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `pkg/util.py` -> `pkg.util`, `pkg/__init__.py` -> `pkg`; undefined when not importable. */
export function moduleName(relativePath: string): string | undefined {
  const parts = relativePath.replace(/\\/g, "/").split("/").filter((p) => p.length > 0);
  const last = parts.pop();
  if (!last || !last.endsWith(".py")) {
    return undefined;
  }
  const stem = last.slice(0, -3);
  if (stem !== "__init__") {
    parts.push(stem);
  }
  if (parts.length === 0 || !parts.every((p) => IDENTIFIER.test(p))) {
    return undefined;
  }
  return parts.join(".");
}

/**
 * Importable modules sorted by name, without the file the code comes from and without
 * files in folders that are not project code (the server's `exclusions`).
 */
export function destinations(
  relativePaths: string[],
  currentRelativePath?: string,
  exclusions?: Exclusions,
): Destination[] {
  const current = currentRelativePath?.replace(/\\/g, "/");
  const seen = new Map<string, Destination>();
  for (const raw of relativePaths) {
    const path = raw.replace(/\\/g, "/");
    if (path === current || isExcludedPath(path, exclusions)) {
      continue;
    }
    const module = moduleName(path);
    if (module && !seen.has(module)) {
      seen.set(module, { module, path });
    }
  }
  return [...seen.values()].sort((a, b) => a.module.localeCompare(b.module));
}

/** Packages (folders with an `__init__.py`), the destinations of a module move. */
export function packageDestinations(
  relativePaths: string[],
  currentRelativePath?: string,
  exclusions?: Exclusions,
): Destination[] {
  const current = currentRelativePath?.replace(/\\/g, "/");
  const found: Destination[] = [];
  for (const d of destinations(relativePaths, undefined, exclusions)) {
    if (d.path.endsWith("/__init__.py")) {
      const folder = d.path.slice(0, -"/__init__.py".length);
      // The package the module already is in is no destination.
      const parentOfCurrent = current?.split("/").slice(0, -1).join("/");
      if (folder !== parentOfCurrent) {
        found.push({ module: d.module, path: folder });
      }
    }
  }
  return found;
}

/** A module name the user typed instead of picking one. */
export function isModuleName(text: string): boolean {
  const parts = text.trim().split(".");
  return parts.length > 0 && parts.every((p) => IDENTIFIER.test(p));
}

/**
 * What the server gets as `destination`: a root-relative path. A typed dotted name becomes
 * `pkg/mod.py` (or the folder `pkg/mod` for a package); a typed path is kept.
 */
export function destinationArgument(typed: string, folder: boolean): string | undefined {
  const text = typed.trim();
  if (text.length === 0) {
    return undefined;
  }
  if (isModuleName(text) && !text.endsWith(".py")) {
    const path = text.split(".").join("/");
    return folder ? path : `${path}.py`;
  }
  return text.replace(/\\/g, "/");
}

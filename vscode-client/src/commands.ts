// Which of the server's executeCommand commands a palette entry runs. The server advertises
// its commands in `executeCommandProvider.commands`; the client matches them by name so that
// it keeps working when a command is renamed or added.

export interface CommandChoice {
  /** Palette command of this extension. */
  paletteId: string;
  /** Server command names tried in order, then `pattern` over the advertised names. */
  preferred: string[];
  pattern: RegExp;
}

export const RUN_AFFECTED_TESTS: CommandChoice = {
  paletteId: "reks.editor.runAffectedTests",
  preferred: ["reks.runAffectedTests"],
  pattern: /affected/i,
};

/** Extreme transformations: which functions are pseudo-tested. */
export const EXTREME_ANALYSIS: CommandChoice = {
  paletteId: "reks.editor.extremeAnalysis",
  preferred: ["reks.analyseWeakTests"],
  pattern: /analy[sz]e|extreme|pseudo/i,
};

/** Reneri: why each transformation went unnoticed, and the test change that catches it. */
export const EXPLAIN_WEAK_TESTS: CommandChoice = {
  paletteId: "reks.editor.explainWeakTests",
  preferred: ["reks.explainWeakTests"],
  pattern: /explain/i,
};

export const PALETTE_CHOICES = [RUN_AFFECTED_TESTS, EXTREME_ANALYSIS, EXPLAIN_WEAK_TESTS];

export function findServerCommand(advertised: readonly string[], choice: CommandChoice): string | undefined {
  for (const name of choice.preferred) {
    if (advertised.includes(name)) {
      return name;
    }
  }
  return advertised.find((name) => choice.pattern.test(name));
}

/** Move commands carry the destination as an argument that the client prompts for. */
export function isMoveCommand(command: string): boolean {
  return /(^|[._])move/i.test(command);
}

/**
 * The first argument of a move command when it still needs a destination (a missing, null
 * or empty `destination` field), undefined otherwise.
 */
export function moveArgumentNeedingDestination(args: unknown[]): Record<string, unknown> | undefined {
  const first = args[0];
  if (typeof first !== "object" || first === null || Array.isArray(first)) {
    return undefined;
  }
  const record = first as Record<string, unknown>;
  const destination = record.destination;
  return destination === undefined || destination === null || destination === "" ? record : undefined;
}

/** A readable palette label for an advertised server command: `reks.runAffectedTests` -> `Run Affected Tests`. */
export function commandLabel(command: string): string {
  const last = command.split(".").pop() ?? command;
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .split(/\s+/);
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
}

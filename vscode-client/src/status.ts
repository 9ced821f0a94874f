// The status bar item: "N tests skipped by refactorings · M affected".
//
// The server sends the `reks/status` notification whenever the numbers change:
//   { skipped: number, affected: number, affectedTests?: string[], message?: string }
// skipped: tests a plain dependency-based selection would rerun that REKS skips because only
// refactorings touched their dependencies; affected: tests that must run (hand edits).

export const STATUS_NOTIFICATION = "reks/status";

export interface ReksStatus {
  skipped: number;
  affected: number;
  affectedTests: string[];
  message?: string;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Validate a notification payload; anything malformed is ignored rather than shown. */
export function parseStatus(payload: unknown): ReksStatus | undefined {
  if (typeof payload !== "object" || payload === null) {
    return undefined;
  }
  const record = payload as Record<string, unknown>;
  const skipped = count(record.skipped);
  const affected = count(record.affected);
  if (skipped === undefined || affected === undefined) {
    return undefined;
  }
  const tests = Array.isArray(record.affectedTests)
    ? record.affectedTests.filter((t): t is string => typeof t === "string")
    : [];
  const message = typeof record.message === "string" ? record.message : undefined;
  return { skipped, affected, affectedTests: tests, message };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function statusText(status: ReksStatus): string {
  return `$(beaker) ${plural(status.skipped, "test")} skipped by refactorings · ${status.affected} affected`;
}

export function statusTooltip(status: ReksStatus): string {
  const lines = [
    `${plural(status.skipped, "test")} need not run: only refactorings touched what they depend on.`,
    status.affected === 0
      ? "No test is affected by your edits."
      : `${plural(status.affected, "test")} affected by edits: click to run them.`,
  ];
  const shown = status.affectedTests.slice(0, 10);
  lines.push(...shown.map((t) => `  ${t}`));
  if (status.affectedTests.length > shown.length) {
    lines.push(`  … and ${status.affectedTests.length - shown.length} more`);
  }
  if (status.message) {
    lines.push(status.message);
  }
  return lines.join("\n");
}

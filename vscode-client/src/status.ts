// The status bar item: "N tests skipped by refactorings · M affected" (the server's texts).
//
// The server sends the `reks/status` notification whenever the numbers change:
//   { skipped: number, affected: number, affectedTests?: string[], message?: string }
// skipped: tests a plain dependency-based selection would rerun that REKS skips because only
// refactorings touched their dependencies; affected: tests that must run (hand edits).

import { StatusTexts, formatTemplate } from "./serverConfig";

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

const ICON = "$(beaker)";

/**
 * The status bar text, from the server's template; a server that sends none still says
 * something: its own summary message.
 */
export function statusText(status: ReksStatus, texts: StatusTexts | undefined): string | undefined {
  const counts = { skipped: status.skipped, affected: status.affected };
  const text = texts ? formatTemplate(texts.text, counts) : status.message;
  return text === undefined ? undefined : `${ICON} ${text}`;
}

export function statusTooltip(status: ReksStatus, texts: StatusTexts | undefined): string {
  if (!texts) {
    return [status.message ?? "", ...status.affectedTests].join("\n").trim();
  }
  const tips = texts.tooltip;
  const lines = [
    formatTemplate(tips.skipped, { skipped: status.skipped }),
    status.affected === 0 ? tips.noneAffected : formatTemplate(tips.affected, { affected: status.affected }),
  ];
  const shown = status.affectedTests.slice(0, tips.listed);
  lines.push(...shown.map((t) => `  ${t}`));
  if (status.affectedTests.length > shown.length) {
    lines.push(`  ${formatTemplate(tips.more, { more: status.affectedTests.length - shown.length })}`);
  }
  if (status.message) {
    lines.push(status.message);
  }
  return lines.join("\n");
}

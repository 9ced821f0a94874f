// What "Run affected tests" answered (the server's `reks.runAffectedTests` result), for the
// message the user sees: the passed/failed counts, and whether there are failures to open.

export interface TestRunSummary {
  /** "3 passed, 1 failed" (the server's sentence). */
  message: string;
  /** How many tests failed over every project folder. */
  failed: number;
}

export function testRunSummary(result: unknown): TestRunSummary | undefined {
  if (typeof result !== "object" || result === null) {
    return undefined;
  }
  const record = result as { message?: unknown; roots?: unknown };
  if (typeof record.message !== "string") {
    return undefined;
  }
  const roots = Array.isArray(record.roots) ? record.roots : [];
  const failed = roots.reduce((sum: number, root: unknown) => {
    const count = (root as { failed?: unknown } | null)?.failed;
    return sum + (typeof count === "number" ? count : 0);
  }, 0);
  return { message: record.message, failed };
}

// The Testing view's data: the tests the server lists in `reks/status` (each skipped or
// affected by the latest refactorings and edits) and the outcome of "Run affected tests".
// Pure: no vscode import, so mocha tests it without an editor.

export type TestState = "skipped" | "affected";

export interface ListedTest {
  nodeid: string;
  uri: string;
  /** 0-based line of the test's `def`. */
  line: number;
  state: TestState;
  reason: string;
}

export function listedTests(payload: unknown): ListedTest[] {
  const tests = (payload as { tests?: unknown } | null)?.tests;
  if (!Array.isArray(tests)) {
    return [];
  }
  return tests.filter(
    (t): t is ListedTest =>
      typeof t?.nodeid === "string" &&
      typeof t?.uri === "string" &&
      typeof t?.line === "number" &&
      (t?.state === "skipped" || t?.state === "affected"),
  );
}

export type Outcome = { kind: "passed" } | { kind: "failed"; message: string } | { kind: "skipped" };

/**
 * Each listed test's outcome in a run of the affected tests: failed when the server's result
 * names it among the failures, passed when it had to run, skipped when a refactoring let
 * reks skip it.
 */
/** The tests to show: the listed ones, then those of the last run that the list no longer
 * has (a test that passed no longer must run), so that their results stay visible. */
export function shownTests(listed: ListedTest[], ran: ListedTest[]): ListedTest[] {
  const ids = new Set(listed.map((test) => test.nodeid));
  return [...listed, ...ran.filter((test) => !ids.has(test.nodeid))];
}

export function outcomes(listed: ListedTest[], result: unknown): Map<string, Outcome> {
  const failures = new Map<string, string>();
  const roots = (result as { roots?: unknown } | null)?.roots;
  for (const root of Array.isArray(roots) ? roots : []) {
    const found = (root as { failures?: unknown } | null)?.failures;
    for (const failure of Array.isArray(found) ? found : []) {
      if (typeof failure?.nodeid === "string") {
        failures.set(failure.nodeid, String(failure.message ?? "failed"));
      }
    }
  }
  const out = new Map<string, Outcome>();
  for (const test of listed) {
    const message = failures.get(test.nodeid);
    out.set(
      test.nodeid,
      message !== undefined ? { kind: "failed", message } : test.state === "affected" ? { kind: "passed" } : { kind: "skipped" },
    );
  }
  return out;
}

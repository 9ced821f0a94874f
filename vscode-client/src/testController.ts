// VS Code's Testing view for reks: the tests a refactoring let reks skip and the ones that
// must run, with "Run affected tests" as the run profile and its results reported there.
import * as vscode from "vscode";

import { ListedTest, listedTests, outcomes, shownTests } from "./testView";

export class ReksTestView implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController("reks", "reks: tests after refactorings");
  private listed: ListedTest[] = [];
  /** The tests of the last run: the status the run itself causes may drop them from the list. */
  private ran: ListedTest[] = [];

  /** `runAffected` runs the server's "Run affected tests" and returns its result. */
  constructor(private readonly runAffected: () => Promise<unknown>) {
    this.controller.createRunProfile(
      "Run affected tests",
      vscode.TestRunProfileKind.Run,
      (request) => this.run(request),
      true,
    );
  }

  /** A `reks/status` payload: replace the listed tests. */
  update(payload: unknown): void {
    this.listed = listedTests(payload);
    this.controller.items.replace(
      shownTests(this.listed, this.ran).map((test) => {
        const item = this.controller.createTestItem(test.nodeid, test.nodeid.split("::").pop() ?? test.nodeid, vscode.Uri.parse(test.uri));
        item.range = new vscode.Range(test.line, 0, test.line, 0);
        item.description = test.state === "skipped" ? `skipped: ${test.reason}` : `must run: ${test.reason}`;
        return item;
      }),
    );
  }

  private async run(request: vscode.TestRunRequest): Promise<void> {
    const run = this.controller.createTestRun(request);
    this.ran = this.listed.filter((t) => t.state === "affected");
    for (const test of this.ran) {
      const item = this.controller.items.get(test.nodeid);
      if (item) {
        run.started(item);
      }
    }
    try {
      const result = await this.runAffected();
      // Items are looked up again: a status update during the run replaced them.
      for (const [nodeid, outcome] of outcomes(this.ran, result)) {
        const item = this.controller.items.get(nodeid);
        if (!item) {
          continue;
        } else if (outcome.kind === "failed") {
          run.failed(item, new vscode.TestMessage(outcome.message));
        } else if (outcome.kind === "passed") {
          run.passed(item);
        } else {
          run.skipped(item);
        }
      }
    } finally {
      run.end();
    }
  }

  dispose(): void {
    this.controller.dispose();
  }
}

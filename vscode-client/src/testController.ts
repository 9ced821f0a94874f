// VS Code's Testing view for reks: the tests a refactoring let reks skip and the ones that
// must run, with "Run affected tests" as the run profile and its results reported there.
import * as vscode from "vscode";

import { ListedTest, listedTests, outcomes } from "./testView";

export class ReksTestView implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController("reks", "reks: tests after refactorings");
  private listed: ListedTest[] = [];

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
      this.listed.map((test) => {
        const item = this.controller.createTestItem(test.nodeid, test.nodeid.split("::").pop() ?? test.nodeid, vscode.Uri.parse(test.uri));
        item.range = new vscode.Range(test.line, 0, test.line, 0);
        item.description = test.state === "skipped" ? `skipped: ${test.reason}` : `must run: ${test.reason}`;
        return item;
      }),
    );
  }

  private async run(request: vscode.TestRunRequest): Promise<void> {
    const run = this.controller.createTestRun(request);
    const items = new Map<string, vscode.TestItem>();
    this.controller.items.forEach((item) => items.set(item.id, item));
    for (const test of this.listed.filter((t) => t.state === "affected")) {
      const item = items.get(test.nodeid);
      if (item) {
        run.started(item);
      }
    }
    try {
      const result = await this.runAffected();
      for (const [nodeid, outcome] of outcomes(this.listed, result)) {
        const item = items.get(nodeid);
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

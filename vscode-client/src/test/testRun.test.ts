import * as assert from "assert";

import { testRunSummary } from "../testRun";

describe("test run summary", () => {
  it("adds up the failures of every folder", () => {
    const result = { message: "3 passed, 2 failed", roots: [{ failed: 1 }, { failed: 1 }, {}] };
    assert.deepStrictEqual(testRunSummary(result), { message: "3 passed, 2 failed", failed: 2 });
  });
  it("ignores an answer without the server's sentence", () => {
    assert.strictEqual(testRunSummary(undefined), undefined);
    assert.strictEqual(testRunSummary({ roots: [] }), undefined);
  });
});

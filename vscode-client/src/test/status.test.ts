import * as assert from "assert";

import { parseStatus, statusText, statusTooltip } from "../status";

describe("status", () => {
  it("formats the status bar text", () => {
    const status = parseStatus({ skipped: 12, affected: 1, affectedTests: ["tests/test_a.py::test_x"] });
    assert.ok(status);
    assert.strictEqual(statusText(status), "$(beaker) 12 tests skipped by refactorings · 1 affected");
    assert.match(statusTooltip(status), /1 test affected by edits/);
    assert.match(statusTooltip(status), /tests\/test_a.py::test_x/);
  });
  it("uses the singular for one test", () => {
    const status = parseStatus({ skipped: 1, affected: 0 });
    assert.ok(status);
    assert.strictEqual(statusText(status), "$(beaker) 1 test skipped by refactorings · 0 affected");
    assert.match(statusTooltip(status), /No test is affected/);
  });
  it("rejects malformed payloads", () => {
    assert.strictEqual(parseStatus(null), undefined);
    assert.strictEqual(parseStatus({ skipped: -1, affected: 0 }), undefined);
    assert.strictEqual(parseStatus({ skipped: 1.5, affected: 0 }), undefined);
    assert.strictEqual(parseStatus({ skipped: 1 }), undefined);
  });
  it("elides long test lists", () => {
    const tests = Array.from({ length: 14 }, (_, i) => `t::test_${i}`);
    const status = parseStatus({ skipped: 0, affected: 14, affectedTests: tests });
    assert.ok(status);
    assert.match(statusTooltip(status), /… and 4 more/);
  });
});

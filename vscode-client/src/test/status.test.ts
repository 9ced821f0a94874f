import * as assert from "assert";

import { parseStatus, statusText, statusTooltip } from "../status";
import { serverConfiguration } from "./serverConfigFixture";

const texts = serverConfiguration().status;

describe("status", () => {
  it("formats the status bar text with the server's texts", () => {
    const status = parseStatus({ skipped: 12, affected: 1, affectedTests: ["tests/test_a.py::test_x"] });
    assert.ok(status && texts);
    assert.strictEqual(statusText(status, texts), "$(beaker) 12 tests skipped by refactorings · 1 affected");
    assert.match(statusTooltip(status, texts), /1 test affected by edits/);
    assert.match(statusTooltip(status, texts), /tests\/test_a.py::test_x/);
  });
  it("uses the singular for one test", () => {
    const status = parseStatus({ skipped: 1, affected: 0 });
    assert.ok(status && texts);
    assert.strictEqual(statusText(status, texts), "$(beaker) 1 test skipped by refactorings · 0 affected");
    assert.match(statusTooltip(status, texts), /No test is affected/);
  });
  it("shows the server's message when the server sends no texts", () => {
    const status = parseStatus({ skipped: 2, affected: 1, affectedTests: ["t::a"], message: "2 skipped, 1 affected" });
    assert.ok(status);
    assert.strictEqual(statusText(status, undefined), "$(beaker) 2 skipped, 1 affected");
    assert.strictEqual(statusTooltip(status, undefined), "2 skipped, 1 affected\nt::a");
    assert.strictEqual(statusText({ skipped: 0, affected: 0, affectedTests: [] }, undefined), undefined);
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
    assert.ok(status && texts);
    assert.match(statusTooltip(status, texts), /… and 4 more/);
    assert.strictEqual(statusTooltip(status, texts).split("\n").filter((l) => l.startsWith("  t::")).length, 10);
  });
});

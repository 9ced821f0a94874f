import * as assert from "assert";

import { listedTests, outcomes, shownTests } from "../testView";

const status = {
  skipped: 1,
  affected: 2,
  tests: [
    { nodeid: "t.py::test_a", uri: "file:///p/t.py", line: 3, state: "affected", reason: "changed" },
    { nodeid: "t.py::test_b", uri: "file:///p/t.py", line: 7, state: "affected", reason: "changed" },
    { nodeid: "t.py::test_c", uri: "file:///p/t.py", line: 9, state: "skipped", reason: "rename `a` -> `b`" },
    { nodeid: 3, uri: "file:///p/t.py", line: 1, state: "affected" },
  ],
};

describe("test view", () => {
  it("lists the well-formed tests of a status", () => {
    assert.deepStrictEqual(
      listedTests(status).map((t) => [t.nodeid, t.line, t.state]),
      [
        ["t.py::test_a", 3, "affected"],
        ["t.py::test_b", 7, "affected"],
        ["t.py::test_c", 9, "skipped"],
      ],
    );
    assert.deepStrictEqual(listedTests({ skipped: 0 }), []);
  });
  it("reports failed, passed and skipped from a run's result", () => {
    const result = { roots: [{ failures: [{ nodeid: "t.py::test_b", message: "assert 1 == 2" }] }] };
    const found = outcomes(listedTests(status), result);
    assert.deepStrictEqual(found.get("t.py::test_a"), { kind: "passed" });
    assert.deepStrictEqual(found.get("t.py::test_b"), { kind: "failed", message: "assert 1 == 2" });
    assert.deepStrictEqual(found.get("t.py::test_c"), { kind: "skipped" });
  });
  it("keeps showing the tests of the last run that the list dropped", () => {
    const listed = listedTests(status);
    const ran = listed.filter((t) => t.state === "affected");
    const after = listedTests({ tests: [status.tests[2]] });
    assert.deepStrictEqual(
      shownTests(after, ran).map((t) => t.nodeid),
      ["t.py::test_c", "t.py::test_a", "t.py::test_b"],
    );
    assert.deepStrictEqual(shownTests(listed, ran).map((t) => t.nodeid), listed.map((t) => t.nodeid));
  });
});

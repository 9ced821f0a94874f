import * as assert from "assert";

import { nearestOccurrence, occurrences } from "../names";

describe("nearestOccurrence", () => {
  const text = "def f():\n    x = extracted_method()\n\ndef extracted_method():\n    return 1\n";
  it("finds whole words only", () => {
    assert.deepStrictEqual(occurrences("ab a ab_ a", "a"), [3, 9]);
  });
  it("picks the call site near the selection", () => {
    const call = text.indexOf("extracted_method()");
    assert.strictEqual(nearestOccurrence(text, "extracted_method", 17), call);
    const def = text.indexOf("extracted_method():\n    return");
    assert.strictEqual(nearestOccurrence(text, "extracted_method", text.length), def);
    assert.strictEqual(nearestOccurrence(text, "missing", 0), undefined);
  });
});

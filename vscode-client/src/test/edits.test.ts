import * as assert from "assert";

import { confirmationMessage, editSize, needsConfirmation } from "../edits";

describe("editSize", () => {
  it("counts files of a changes map", () => {
    const size = editSize({ changes: { "file:///a.py": [{}, {}], "file:///b.py": [{}] } });
    assert.deepStrictEqual(size, { files: 2, textEdits: 3, resourceOperations: 0 });
  });
  it("counts document changes and resource operations once per file", () => {
    const size = editSize({
      documentChanges: [
        { textDocument: { uri: "file:///a.py", version: 3 }, edits: [{}, {}] },
        { kind: "rename", oldUri: "file:///b.py", newUri: "file:///c.py" },
        { textDocument: { uri: "file:///c.py", version: null }, edits: [{}] },
        { kind: "create", uri: "file:///d.py" },
      ],
    });
    assert.deepStrictEqual(size, { files: 4, textEdits: 3, resourceOperations: 2 });
  });
  it("tolerates garbage", () => {
    assert.deepStrictEqual(editSize(undefined), { files: 0, textEdits: 0, resourceOperations: 0 });
  });
});

describe("needsConfirmation", () => {
  it("asks only above the threshold, never with 0", () => {
    const size = { files: 11, textEdits: 20, resourceOperations: 0 };
    assert.strictEqual(needsConfirmation(size, 10), true);
    assert.strictEqual(needsConfirmation(size, 11), false);
    assert.strictEqual(needsConfirmation(size, 0), false);
    assert.match(confirmationMessage("Rename", size), /changes 11 files \(20 edits\)/);
  });
});

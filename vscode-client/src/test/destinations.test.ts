import * as assert from "assert";

import { destinations, isModuleName, moduleName } from "../destinations";

describe("moduleName", () => {
  it("maps paths to dotted names", () => {
    assert.strictEqual(moduleName("pkg/util.py"), "pkg.util");
    assert.strictEqual(moduleName("pkg/sub/__init__.py"), "pkg.sub");
    assert.strictEqual(moduleName("top.py"), "top");
    assert.strictEqual(moduleName("pkg\\win.py"), "pkg.win");
  });
  it("rejects what cannot be imported", () => {
    assert.strictEqual(moduleName("my-pkg/util.py"), undefined);
    assert.strictEqual(moduleName("README.md"), undefined);
    assert.strictEqual(moduleName("__init__.py"), undefined);
  });
});

describe("destinations", () => {
  it("sorts, dedupes and skips the source file and virtualenvs", () => {
    const found = destinations(
      ["b.py", "pkg/__init__.py", "a.py", ".venv/lib/x.py", "pkg/a.py", "node_modules/q.py"],
      "a.py",
    );
    assert.deepStrictEqual(
      found.map((d) => d.module),
      ["b", "pkg", "pkg.a"],
    );
  });
  it("accepts typed module names", () => {
    assert.ok(isModuleName("pkg.new_mod"));
    assert.ok(!isModuleName("pkg..x"));
    assert.ok(!isModuleName("1pkg"));
  });
});

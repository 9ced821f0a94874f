import * as assert from "assert";

import { destinationArgument, destinations, isModuleName, moduleName, packageDestinations } from "../destinations";
import { serverConfiguration } from "./serverConfigFixture";

const exclusions = serverConfiguration().exclusions;

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
      exclusions,
    );
    assert.deepStrictEqual(
      found.map((d) => d.module),
      ["b", "pkg", "pkg.a"],
    );
  });
  it("keeps everything when the server names no exclusions", () => {
    const found = destinations(["b.py", "venv/lib/x.py"], undefined, undefined);
    assert.deepStrictEqual(
      found.map((d) => d.path),
      ["b.py", "venv/lib/x.py"],
    );
    assert.deepStrictEqual(destinations(["b.py", "venv/lib/x.py"], undefined, exclusions).map((d) => d.path), ["b.py"]);
  });
  it("skips build output only at the root", () => {
    const found = destinations(["build/lib/x.py", "src/build/y.py"], undefined, exclusions);
    assert.deepStrictEqual(
      found.map((d) => d.module),
      ["src.build.y"],
    );
  });
  it("accepts typed module names", () => {
    assert.ok(isModuleName("pkg.new_mod"));
    assert.ok(!isModuleName("pkg..x"));
    assert.ok(!isModuleName("1pkg"));
  });
});

describe("packageDestinations", () => {
  it("lists package folders except the module's own", () => {
    const files = ["pkg/__init__.py", "pkg/a.py", "pkg/sub/__init__.py", "other/__init__.py", "top.py"];
    assert.deepStrictEqual(
      packageDestinations(files, "pkg/a.py", exclusions).map((d) => d.path),
      ["other", "pkg/sub"],
    );
  });
});

describe("destinationArgument", () => {
  it("turns typed names into root-relative paths", () => {
    assert.strictEqual(destinationArgument("pkg.new_mod", false), "pkg/new_mod.py");
    assert.strictEqual(destinationArgument("pkg.sub", true), "pkg/sub");
    assert.strictEqual(destinationArgument("lib/x.py", false), "lib/x.py");
    assert.strictEqual(destinationArgument("  ", false), undefined);
  });
});

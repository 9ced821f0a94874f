import * as assert from "assert";

import {
  excludeGlob,
  formatTemplate,
  fromInitializeResult,
  isExcludedPath,
  parseClientConfiguration,
} from "../serverConfig";
import { RAW_SERVER_CONFIGURATION, serverConfiguration } from "./serverConfigFixture";

describe("server configuration", () => {
  it("reads what the server serves", () => {
    const config = serverConfiguration();
    assert.strictEqual(config.defaultNames.extractedMethod, "extracted_method");
    assert.strictEqual(config.defaultNames.extractedVariable, "extracted_variable");
    assert.ok(config.exclusions && config.exclusions.globs.includes("**/.venv/**"));
    assert.ok(config.status);
  });
  it("is found in the initialize result and survives malformed parts", () => {
    const result = { capabilities: { experimental: { reks: RAW_SERVER_CONFIGURATION } } };
    assert.deepStrictEqual(fromInitializeResult(result), serverConfiguration());
    assert.strictEqual(fromInitializeResult({ capabilities: {} }), undefined);
    assert.strictEqual(fromInitializeResult(undefined), undefined);
    const partial = parseClientConfiguration({ defaultNames: { extractedMethod: "m", bad: 3 }, status: { text: 1 } });
    assert.deepStrictEqual(partial, { defaultNames: { extractedMethod: "m" }, exclusions: undefined, status: undefined });
  });
  it("excludes the server's folders, root-only ones only at the root", () => {
    const exclusions = serverConfiguration().exclusions;
    assert.ok(isExcludedPath(".venv/lib/x.py", exclusions));
    assert.ok(isExcludedPath("src/node_modules/q.py", exclusions));
    assert.ok(isExcludedPath("pkg.egg-info/x.py", exclusions));
    assert.ok(isExcludedPath("build/lib/x.py", exclusions));
    assert.ok(!isExcludedPath("src/build/x.py", exclusions));
    assert.ok(!isExcludedPath("pkg/util.py", exclusions));
    assert.ok(!isExcludedPath(".venv/lib/x.py", undefined));
  });
  it("joins the globs for findFiles", () => {
    const glob = excludeGlob(serverConfiguration().exclusions);
    assert.ok(glob && glob.startsWith("{**/.git/**,") && glob.endsWith(",env/**}"));
    assert.strictEqual(excludeGlob(undefined), undefined);
    assert.strictEqual(excludeGlob({ globs: ["a/**"], dirs: [], rootOnlyDirs: [], dirSuffixes: [] }), "a/**");
  });
  it("fills templates", () => {
    assert.strictEqual(formatTemplate("{n:test:tests} and {m}", { n: 1, m: 0 }), "1 test and 0");
    assert.strictEqual(formatTemplate("{n:test:tests}", { n: 3 }), "3 tests");
    assert.strictEqual(formatTemplate("{unknown}", {}), "{unknown}");
  });
});

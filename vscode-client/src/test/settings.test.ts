import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";

import { contributedKeys, isClientOnly, serverOptions } from "../settings";

const packageJson = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
const properties = packageJson.contributes.configuration.properties as Record<string, Record<string, unknown>>;

describe("contributed settings", () => {
  const keys = contributedKeys(packageJson);
  it("are documented and typed", () => {
    assert.ok(keys.length > 20);
    for (const key of keys) {
      const spec = properties[`reks.${key}`];
      assert.ok(typeof spec.markdownDescription === "string" && spec.markdownDescription.length > 10, key);
      assert.ok(typeof spec.type === "string", key);
      assert.ok("default" in spec, key);
    }
  });
  it("cover the issue's groups", () => {
    for (const prefix of ["actions.", "defaultNames.", "onSave", "trustButVerify", "extreme.", "server.pythonPath"]) {
      assert.ok(
        keys.some((k) => k.startsWith(prefix)),
        prefix,
      );
    }
  });
  it("nest into the server options, without client-only keys", () => {
    const defaults = (key: string): unknown => properties[`reks.${key}`].default;
    const options = serverOptions(keys, defaults);
    assert.strictEqual((options.actions as Record<string, unknown>).extractMethod, true);
    assert.strictEqual((options.defaultNames as Record<string, unknown>).extractedMethod, "extracted_method");
    assert.deepStrictEqual(options.onSave, []);
    assert.strictEqual(options.trustButVerify, true);
    assert.ok(!("server" in options) && !("client" in options) && !("trace" in options));
    assert.ok(isClientOnly("client.statusBar"));
  });
  it("reflect the values the user set", () => {
    const options = serverOptions(["onSave", "actions.move", "extreme.timeoutSeconds"], (key) =>
      key === "onSave" ? ["organizeImports"] : key === "actions.move" ? false : undefined,
    );
    assert.deepStrictEqual(options, { onSave: ["organizeImports"], actions: { move: false } });
  });
});

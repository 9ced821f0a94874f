import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";

import {
  EXTREME_ANALYSIS,
  RUN_AFFECTED_TESTS,
  commandLabel,
  findServerCommand,
  isMoveCommand,
  moveArgumentNeedingDestination,
} from "../commands";
import { RestartPolicy } from "../restart";

describe("server commands", () => {
  it("match the advertised names", () => {
    assert.strictEqual(findServerCommand(["reks.x", "reks.runAffectedTests"], RUN_AFFECTED_TESTS), "reks.runAffectedTests");
    assert.strictEqual(findServerCommand(["reks.tests.affected.run"], RUN_AFFECTED_TESTS), "reks.tests.affected.run");
    assert.strictEqual(findServerCommand(["reks.extreme.run"], EXTREME_ANALYSIS), "reks.extreme.run");
    assert.strictEqual(findServerCommand([], EXTREME_ANALYSIS), undefined);
  });
  it("are in the palette", () => {
    const packageJson = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
    const ids = (packageJson.contributes.commands as { command: string }[]).map((c) => c.command);
    assert.ok(ids.includes(RUN_AFFECTED_TESTS.paletteId));
    assert.ok(ids.includes(EXTREME_ANALYSIS.paletteId));
  });
  it("recognise moves needing a destination", () => {
    assert.ok(isMoveCommand("reks.refactor.move"));
    assert.ok(isMoveCommand("reks.moveGlobal"));
    assert.ok(!isMoveCommand("reks.removeImport"));
    assert.deepStrictEqual(moveArgumentNeedingDestination([{ uri: "u", destination: null }]), { uri: "u", destination: null });
    assert.strictEqual(moveArgumentNeedingDestination([{ uri: "u", destination: "pkg.m" }]), undefined);
    assert.strictEqual(moveArgumentNeedingDestination(["u"]), undefined);
  });
  it("label commands", () => {
    assert.strictEqual(commandLabel("reks.runAffectedTests"), "Run Affected Tests");
    assert.strictEqual(commandLabel("reks.extreme_analysis"), "Extreme Analysis");
  });
});

describe("RestartPolicy", () => {
  it("stops restarting after the limit within the window, and forgets old crashes", () => {
    const policy = new RestartPolicy(2, 1000);
    assert.ok(policy.onCrash(0));
    assert.ok(policy.onCrash(10));
    assert.ok(!policy.onCrash(20));
    assert.ok(policy.onCrash(5000));
    policy.reset();
    assert.ok(policy.onCrash(5001));
  });
});

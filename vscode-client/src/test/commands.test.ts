import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";

import {
  EXPLAIN_WEAK_TESTS,
  EXTREME_ANALYSIS,
  PALETTE_CHOICES,
  RUN_AFFECTED_TESTS,
  commandLabel,
  findServerCommand,
  isMoveCommand,
  moveArgumentNeedingDestination,
} from "../commands";
import { RestartPolicy } from "../restart";

describe("server commands", () => {
  it("match the advertised names", () => {
    const advertised = ["reks.refactor.apply", "reks.explainWeakTests", "reks.runAffectedTests", "reks.analyseWeakTests"];
    assert.strictEqual(findServerCommand(advertised, RUN_AFFECTED_TESTS), "reks.runAffectedTests");
    assert.strictEqual(findServerCommand(advertised, EXTREME_ANALYSIS), "reks.analyseWeakTests");
    assert.strictEqual(findServerCommand(advertised, EXPLAIN_WEAK_TESTS), "reks.explainWeakTests");
    assert.strictEqual(findServerCommand(["reks.tests.affected.run"], RUN_AFFECTED_TESTS), "reks.tests.affected.run");
    assert.strictEqual(findServerCommand(["reks.extreme.run"], EXTREME_ANALYSIS), "reks.extreme.run");
    assert.strictEqual(findServerCommand([], EXTREME_ANALYSIS), undefined);
  });
  it("are in the palette", () => {
    const packageJson = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
    const ids = (packageJson.contributes.commands as { command: string }[]).map((c) => c.command);
    for (const choice of PALETTE_CHOICES) {
      assert.ok(ids.includes(choice.paletteId), choice.paletteId);
    }
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

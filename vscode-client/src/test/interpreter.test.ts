import * as assert from "assert";

import {
  bundledEnv,
  canInstall,
  chooseInterpreter,
  classifyProbe,
  installCommand,
  probeMessage,
} from "../interpreter";

describe("chooseInterpreter", () => {
  it("prefers the Python extension's interpreter", () => {
    assert.deepStrictEqual(chooseInterpreter("/venv/bin/python", "/usr/bin/python3.11"), {
      command: "/venv/bin/python",
      source: "python-extension",
    });
  });
  it("falls back to the setting, then python3", () => {
    assert.strictEqual(chooseInterpreter(undefined, " /opt/py/bin/python ").command, "/opt/py/bin/python");
    assert.strictEqual(chooseInterpreter("", "").command, "python3");
    assert.strictEqual(chooseInterpreter(undefined, undefined).source, "default");
  });
});

describe("classifyProbe", () => {
  it("recognises a missing module", () => {
    const stderr = 'Traceback (most recent call last):\n  File "<string>", line 1\nModuleNotFoundError: No module named \'lsp_server\'\n';
    assert.deepStrictEqual(classifyProbe(1, stderr), { kind: "not-installed", module: "lsp_server" });
  });
  it("recognises a missing interpreter and success", () => {
    assert.deepStrictEqual(classifyProbe(null, "", "ENOENT"), { kind: "no-interpreter" });
    assert.deepStrictEqual(classifyProbe(0, ""), { kind: "ok" });
  });
  it("keeps the last line of other failures", () => {
    assert.deepStrictEqual(classifyProbe(1, "boom\nImportError: bad magic"), {
      kind: "failed",
      detail: "ImportError: bad magic",
    });
  });
});

describe("probeMessage", () => {
  const python = { command: "/home/me/my env/bin/python", source: "setting" as const };
  const bundle = { libs: "/ext/bundled/libs", wheel: "/ext/bundled/reks-0.1.0-py3-none-any.whl" };
  it("names the bundled wheel, never `pip install reks` (not on the package index)", () => {
    const message = probeMessage(python, { kind: "not-installed", module: "pygls" }, bundle) ?? "";
    assert.match(message, /not installed in \/home\/me\/my env\/bin\/python/);
    assert.match(message, /the copy bundled with the extension cannot run there/);
    assert.match(message, /"\/home\/me\/my env\/bin\/python" -m pip install \/ext\/bundled\/reks-0.1.0-py3-none-any.whl/);
    assert.match(message, /reks\.server\.pythonPath/);
    assert.doesNotMatch(message, /pip install reks\b/);
    assert.strictEqual(probeMessage(python, { kind: "ok" }), undefined);
  });
  it("without a bundle, names a clone of reks", () => {
    assert.strictEqual(installCommand("/usr/bin/python3"), "/usr/bin/python3 -m pip install -e /path/to/a/clone/of/reks");
    assert.strictEqual(canInstall(undefined), false);
    assert.strictEqual(canInstall(bundle), true);
  });
  it("asks for pytest when only the project's pytest is missing", () => {
    const message = probeMessage(python, { kind: "not-installed", module: "pytest" }, bundle) ?? "";
    assert.match(message, /-m pip install pytest$/);
  });
  it("puts the bundle after the interpreter's own PYTHONPATH", () => {
    assert.deepStrictEqual(bundledEnv(bundle, undefined), { PYTHONPATH: "/ext/bundled/libs" });
    assert.deepStrictEqual(bundledEnv(bundle, "/mine"), { PYTHONPATH: "/mine:/ext/bundled/libs" });
  });
});

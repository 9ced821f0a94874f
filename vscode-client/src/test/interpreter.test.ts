import * as assert from "assert";

import { chooseInterpreter, classifyProbe, installCommand, probeMessage } from "../interpreter";

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
  it("gives the pip command for the interpreter in use", () => {
    const python = { command: "/home/me/my env/bin/python", source: "setting" as const };
    const message = probeMessage(python, { kind: "not-installed", module: "pygls" }) ?? "";
    assert.match(message, /not installed in \/home\/me\/my env\/bin\/python/);
    assert.match(message, /"\/home\/me\/my env\/bin\/python" -m pip install reks/);
    assert.match(message, /reks\.server\.pythonPath/);
    assert.strictEqual(probeMessage(python, { kind: "ok" }), undefined);
  });
  it("quotes only when needed", () => {
    assert.strictEqual(installCommand("/usr/bin/python3"), "/usr/bin/python3 -m pip install reks");
  });
});

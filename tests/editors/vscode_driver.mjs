// Drives a real code-server (VS Code in the browser) with playwright-core in Debian's Chromium,
// as a person would: keyboard and mouse on the workbench, no extension-host hooks.
//
// node vscode_driver.mjs CONFIG.json
//   CONFIG: { playwright: dir holding node_modules/playwright-core, chromium, url, artifacts,
//             scenario: "bundled" | "refactor", ... scenario fields }
// Writes { ok, steps: [...], ...observations } as JSON to CONFIG.result; screenshots of each
// step go to CONFIG.artifacts.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const config = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const require = createRequire(path.join(config.playwright, "package.json"));
const { chromium } = require("playwright-core");

const result = { ok: false, steps: [] };
let page;
let shot = 0;

function log(message) {
  result.steps.push(message);
  process.stderr.write(`[driver] ${message}\n`);
}

async function screenshot(name) {
  shot += 1;
  const file = path.join(config.artifacts, `${String(shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
}

async function waitFor(what, fn, timeoutMs = 60000, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) {
      return last;
    }
    await page.waitForTimeout(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

async function notifications() {
  return page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts();
}

async function runCommand(title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`>${title}`);
  await page.waitForTimeout(400);
  await page.keyboard.press("Enter");
}

async function openFile(relative) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(relative);
  await page.locator(".quick-input-list .monaco-list-row").first().waitFor({ state: "visible" });
  await page.waitForTimeout(300);
  await page.keyboard.press("Enter");
  const tab = page.locator(`.tabs-container .tab[aria-label^="${path.basename(relative)}"]`);
  await tab.first().waitFor({ state: "visible" });
  await page.locator(".monaco-editor .view-lines").first().waitFor({ state: "visible" });
  await page.waitForTimeout(500);
}

/** Put the cursor at 1-based line/column with the "Go to Line/Column" box. */
async function gotoPosition(line, column) {
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+G");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`:${line}:${column}`);
  await page.waitForTimeout(200);
  await page.keyboard.press("Enter");
  await page.waitForTimeout(200);
}

/** Select from 1-based line/column to the end of that line. */
async function selectToLineEnd(line, column) {
  await gotoPosition(line, column);
  await page.keyboard.press("Shift+End");
  await page.waitForTimeout(200);
}

async function editorText() {
  const text = await page.locator(".monaco-editor .view-lines").first().innerText();
  return text.replace(/\u00a0/g, " ");
}

/** Save every dirty editor (a refactoring edits files in the background, unsaved). */
async function saveAll() {
  await page.waitForTimeout(500);
  await waitFor("every editor saved", async () => {
    if ((await page.locator(".tabs-container .tab.dirty").count()) === 0) {
      return true;
    }
    await runCommand("File: Save All");
    await page.waitForTimeout(1000);
    return (await page.locator(".tabs-container .tab.dirty").count()) === 0;
  }, 30000, 500);
  await page.waitForTimeout(500);
}

async function statusBarText() {
  const item = page.locator(".statusbar-item", { hasText: "skipped by refactorings" });
  return (await item.count()) > 0 ? (await item.first().innerText()).trim() : undefined;
}

/**
 * The rename box appears before the server answered prepareRename; typing then would go into
 * the editor. Wait until it holds the old name and has the focus.
 */
async function renameBoxReady(expected) {
  const input = page.locator(".rename-box input");
  await input.waitFor({ state: "visible", timeout: 30000 });
  await waitFor("the rename box to be ready", async () =>
    input.evaluate((el, want) => el === document.activeElement && el.value === want, expected),
  );
  await page.waitForTimeout(200);
  return input;
}

async function problems() {
  return page.locator(".markers-panel .monaco-list-row").allInnerTexts();
}

/** Open the Problems panel and wait for a row containing `expected`; every row. */
async function problemsShowing(expected, timeoutMs) {
  await runCommand("View: Focus Problems");
  await page.locator(".markers-panel").waitFor({ state: "visible" });
  return waitFor(`"${expected}" in the Problems panel`, async () => {
    const rows = await problems();
    return rows.some((r) => r.includes(expected)) ? rows : undefined;
  }, timeoutMs);
}

async function testRows() {
  const rows = page.locator(".test-explorer .monaco-list-row");
  const out = [];
  for (let i = 0; i < (await rows.count()); i++) {
    out.push(`${await rows.nth(i).innerText()} | ${(await rows.nth(i).getAttribute("aria-label")) ?? ""}`);
  }
  return out.map((r) => r.replace(/\s+/g, " "));
}

/** The Testing view lists the test that must run; its run profile runs it, and the row then
 * says how it went. */
async function testingView(expect) {
  await runCommand("Testing: Focus on Test Explorer View");
  result.testRows = await waitFor(`"${expect.test}" in the Testing view`, async () => {
    const rows = await testRows();
    return rows.some((r) => r.includes(expect.test)) ? rows : undefined;
  }, 60000);
  await screenshot("testing-view");
  await runCommand("Test: Run All Tests");
  result.testRowsAfterRun = await waitFor(`"${expect.test}" ${expect.after}`, async () => {
    const rows = await testRows();
    return rows.some((r) => r.includes(expect.test) && r.includes(expect.after)) ? rows : undefined;
  }, 120000).catch(async () => testRows());
  await screenshot("testing-view-run");
}

/** An interpreter without reks: the extension runs its bundled copy, which publishes the
 * REKS diagnostics; the output channel says which copy runs. */
async function scenarioBundled() {
  const c = config;
  await openFile(c.file);
  result.problems = await problemsShowing(c.expectProblem, 120000);
  await screenshot("bundled-problems");
  result.notifications = await notifications();
  if (c.testingView) {
    await testingView(c.testingView);
  }
  await runCommand("reks: Show server output");
  result.output = await waitFor("the reks output channel", async () => {
    const text = await page.locator(".output-view .view-lines").first().innerText().catch(() => "");
    return text.includes("bundled") ? text.replace(/\u00a0/g, " ") : undefined;
  }, 30000);
  await screenshot("bundled-output");
}

async function scenarioRefactor() {
  const c = config;
  await openFile(c.file);
  await screenshot("opened");

  // Problems panel: the server's diagnostics for the workspace (REKS: tests that must run).
  result.problems = await problemsShowing(c.expectProblem, 90000);
  await screenshot("problems");

  // F2 rename: the box starts with the word selected, so typing replaces it.
  await gotoPosition(c.rename.line, c.rename.column);
  await page.keyboard.press("F2");
  const renameInput = await renameBoxReady(c.rename.oldName);
  await screenshot("rename-box");
  await page.keyboard.type(c.rename.newName);
  await page.keyboard.press("Enter");
  await renameInput.waitFor({ state: "hidden" });
  await waitFor("the rename in the editor", async () => (await editorText()).includes(`def ${c.rename.newName}(`));
  await screenshot("renamed");
  await saveAll();
  result.statusAfterRename = await waitFor(
    `the status bar to read "${c.statusAfterRename}"`,
    async () => {
      const text = await statusBarText();
      return text && text.includes(c.statusAfterRename) ? text : undefined;
    },
    30000,
  ).catch(async () => statusBarText());
  await screenshot("status-after-rename");

  // Extract method: select the statement, Refactor…, pick the action, name it in the prompt
  // that the extension opens on the extracted name.
  await page.locator(".monaco-editor .view-lines").first().click();
  await selectToLineEnd(c.extract.line, c.extract.column);
  await runCommand("Refactor...");
  const menuItem = page.locator(".action-widget .monaco-list-row", { hasText: c.extract.title });
  await menuItem.first().waitFor({ state: "visible", timeout: 30000 });
  await screenshot("refactor-menu");
  const exact = page.locator(".action-widget .monaco-list-row").filter({
    has: page.locator(`text="${c.extract.title}"`),
  });
  await ((await exact.count()) > 0 ? exact.first() : menuItem.first()).click();
  const nameInput = await renameBoxReady(c.extract.defaultName);
  await screenshot("extract-name-prompt");
  await page.keyboard.type(c.extract.newName);
  await page.keyboard.press("Enter");
  await nameInput.waitFor({ state: "hidden" });
  await waitFor("the extracted method's name", async () => (await editorText()).includes(`def ${c.extract.newName}(`));
  await saveAll();
  await screenshot("extracted");
  result.statusAfterExtract = await statusBarText();

  // Move: the code action comes as a command; the extension asks for the destination in a
  // quick pick of the workspace's modules.
  if (c.move) {
    await gotoPosition(c.move.line, c.move.column);
    await runCommand("Refactor...");
    const moveItem = page.locator(".action-widget .monaco-list-row", { hasText: c.move.title });
    await moveItem.first().waitFor({ state: "visible", timeout: 30000 });
    await moveItem.first().click();
    const pickInput = page.locator(".quick-input-widget input");
    await pickInput.waitFor({ state: "visible" });
    await page.locator(".quick-input-list .monaco-list-row", { hasText: c.move.pick }).first().waitFor();
    result.moveChoices = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
    await screenshot("move-destination");
    await page.keyboard.type(c.move.pick);
    await page.waitForTimeout(300);
    await page.keyboard.press("Enter");
    await waitFor("the moved function to leave the file", async () => !(await editorText()).includes(c.move.gone));
    await saveAll();
    await screenshot("moved");
  }

  // Extreme analysis from the palette: pseudo-tested functions land in the Problems panel.
  if (c.extreme) {
    await runCommand("reks: Find pseudo-tested functions");
    await runCommand("View: Focus Problems");
    result.extremeProblems = await waitFor("pseudo-tested functions in the Problems panel", async () => {
      const rows = await problems();
      return rows.some((r) => r.includes(c.extreme.expect)) ? rows : undefined;
    }, 120000, 1000);
    await screenshot("pseudo-tested");
  }

  // The server dies (the test kills it): the extension starts it again, and the new server
  // publishes its diagnostics again.
  if (c.crash) {
    fs.writeFileSync(c.crash.request, "kill");
    await waitFor("the test to kill the server", async () => fs.existsSync(c.crash.done), 30000);
    await runCommand("reks: Show server output");
    result.restartLog = await waitFor("the restart in the reks output", async () => {
      const line = page.getByText("the server stopped; starting it again");
      return (await line.count()) > 0 ? (await line.first().innerText()).replace(/\u00a0/g, " ").trim() : undefined;
    }, 30000);
    await runCommand("View: Focus Problems");
    result.problemsAfterRestart = await waitFor("diagnostics from the restarted server", async () => {
      const rows = await problems();
      return rows.some((r) => r.includes(c.expectProblem)) ? rows : undefined;
    }, 60000);
    // The new server answers: its diagnostics came back (above). The refactor menu is not
    // asked here: what it lists depends on where a click lands in the editor.
    if (!c.crash.action) return;
    await page.keyboard.press("Escape");
    await page.locator(".monaco-editor .view-lines").first().click();
    await runCommand("Refactor...");
    const row = page.locator(".action-widget .monaco-list-row", { hasText: new RegExp(c.crash.action) });
    await row.first().waitFor({ state: "visible", timeout: 30000 });
    result.actionsAfterRestart = await page.locator(".action-widget .monaco-list-row").allInnerTexts();
    await screenshot("restarted");
    await page.keyboard.press("Escape");
  }
}

async function main() {
  const browser = await chromium.launch({
    executablePath: config.chromium,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(60000);
    await page.goto(config.url);
    await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 90000 });
    await page.waitForTimeout(2000);
    await screenshot("workbench");
    if (config.scenario === "bundled") {
      await scenarioBundled();
    } else {
      await scenarioRefactor();
    }
    result.ok = true;
  } catch (err) {
    result.error = String(err && err.stack ? err.stack : err);
    try {
      await screenshot("failure");
      // The extension's output channel tells why the server did not do its part.
      await page.keyboard.press("Escape");
      await runCommand("reks: Show server output");
      await page.waitForTimeout(1500);
      await screenshot("failure-output");
      result.output = await page.locator(".output-view .view-lines").first().innerText().catch(() => "");
    } catch {
      // the page is gone; the error says why
    }
  } finally {
    await browser.close();
    fs.writeFileSync(config.result, JSON.stringify(result, null, 2));
  }
}

await main();

-- End-to-end scenario run by test_neovim_e2e.py in real Neovim (0.7.2 and 0.11) against the
-- real reks server. Globals set by the test: PYTHON, INPUTS (answers to vim.ui.input),
-- PICKS (labels chosen in vim.ui.select); report{} and trace() come from the runner.
local reks = require("reks")
local answers = { input = {}, select = {} }
-- A person answering the prompts: names typed into vim.ui.input, items picked in
-- vim.ui.select by a matching label.
vim.notify = function(msg) trace("notify: " .. tostring(msg)) end
vim.ui.input = function(opts, on_confirm)
  trace("input: " .. tostring(opts.prompt))
  table.insert(answers.input, opts.prompt)
  on_confirm(table.remove(INPUTS, 1))
end
vim.ui.select = function(items, opts, on_choice)
  trace("select: " .. tostring(opts.prompt))
  local want = table.remove(PICKS, 1)
  local labels = {}
  for i, item in ipairs(items) do
    local label = opts.format_item and opts.format_item(item) or item
    labels[#labels + 1] = label
    if label == want then
      table.insert(answers.select, { prompt = opts.prompt, labels = labels })
      return on_choice(item, i)
    end
  end
  table.insert(answers.select, { prompt = opts.prompt, labels = labels, missing = want })
  on_choice(nil, nil)
end

reks.setup({ python = PYTHON, settings = { onSave = { "organizeImports" }, onSaveTimeout = 120 } })
local buf = vim.api.nvim_get_current_buf()
local function client() return reks.client(buf) end
assert(vim.wait(30000, function()
  local c = client()
  return c ~= nil and c.initialized ~= false and c.server_capabilities ~= nil
end, 50), "the reks server did not start")

local function text(b) return table.concat(vim.api.nvim_buf_get_lines(b or buf, 0, -1, false), "\n") end
-- 1-based line and 0-based byte column of the first match of `pattern` (plain text).
local function find(pattern)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = l:find(pattern, 1, true)
    if s then return i, s - 1, l end
  end
  error("not in the buffer: " .. pattern .. "\n" .. text())
end
-- The diagnostics Neovim holds for every buffer, and the reks status, once `ready()` holds.
local function diagnostics_now()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(nil)) do
    out[#out + 1] = {
      file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(d.bufnr), ":t"),
      lnum = d.lnum,
      message = d.message,
      source = d.source,
      severity = d.severity,
    }
  end
  return out
end
-- The server works through refactorings in the background and may publish a few states in
-- a row: wait until `ready` holds on a status that has not changed for a while.
local function published(ready, timeout)
  local last, since = nil, vim.loop.now()
  vim.wait(timeout or 30000, function()
    if reks.status ~= last then
      last, since = reks.status, vim.loop.now()
    end
    return reks.status ~= nil and vim.loop.now() - since > 1500 and ready(reks.status, diagnostics_now())
  end, 100)
  return { diagnostics = diagnostics_now(), status = reks.status and vim.deepcopy(reks.status), statusline = reks.statusline() }
end
local snapshots = {}
local function wait_text(pattern, what)
  assert(vim.wait(30000, function() return text():find(pattern) ~= nil end, 50), "timed out: " .. what .. "\n" .. text())
end

trace("1. rename")
-- 1. rename `add` (line 5) to `plus` with the built-in rename.
local row, col = find("def add")
vim.api.nvim_win_set_cursor(0, { row, col + 5 })
vim.lsp.buf.rename("plus")
wait_text("def plus%(", "rename")
vim.cmd("silent wall")
-- The saved files are first seen as a hand edit, until the rename's announcement (its checks
-- run on a thread, the first one loads them: many seconds on a loaded machine) explains them.
snapshots.rename = published(function(st) return st.skipped >= 2 end, 90000)

trace("2. extract method")
-- 2. extract method through the built-in code-action UI on the `print(...)` statement.
PICKS[#PICKS + 1] = "Extract method"
local prow, pcol, pline = find('print("sum"')
local range_start, range_end = { prow, pcol }, { prow, #pline }
if vim.fn.has("nvim-0.8") == 1 then
  vim.lsp.buf.code_action({
    context = { only = { "refactor.extract.method" }, diagnostics = {} },
    range = { start = range_start, ["end"] = range_end },
  })
else
  vim.lsp.buf.range_code_action({ only = { "refactor.extract.method" }, diagnostics = {} }, range_start, range_end)
end
wait_text("def extracted_method%(", "extract method")
vim.cmd("silent wall")

trace("3. extract variable")
-- 3. extract variable with reks.lua's name prompt: `total * 2 + 1` becomes `doubled`.
INPUTS[#INPUTS + 1] = "doubled"
local line, s = find("total * 2 + 1")
reks.code_action({ kind = "refactor.extract.variable", line1 = line, line2 = line,
                   col1 = s, col2 = s + #"total * 2 + 1", bufnr = buf })
wait_text("doubled = ", "extract variable with its name")
vim.cmd("silent wall")

trace("4. move")
-- 4. move `plus` to helpers.py: the code action comes as a command; reks.lua prompts.
PICKS[#PICKS + 1] = "Move function `plus` to module…"
PICKS[#PICKS + 1] = "helpers.py"
row, col = find("def plus")
vim.api.nvim_win_set_cursor(0, { row, col + 5 })
if vim.fn.has("nvim-0.8") == 1 then
  vim.lsp.buf.code_action({ context = { only = { "refactor.move" }, diagnostics = {} } })
else
  vim.lsp.buf.code_action({ only = { "refactor.move" }, diagnostics = {} })
end
assert(vim.wait(30000, function() return not text():find("def plus") end, 50), "move:\n" .. text())
vim.cmd("silent wall")

trace("5. refactor-on-save")
-- 5. refactor-on-save: an unused import typed by hand goes when the buffer is written; the
-- hand edit of report() stays, and its test must run again.
vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "import json" })
local rrow, rcol, rline = find("return total")
vim.api.nvim_buf_set_lines(buf, rrow - 1, rrow, false, { rline:sub(1, rcol) .. "return total + 0" })
vim.cmd("write")

-- 6. after the hand edit, the tests depending on report() must run again.
snapshots.hand_edit = published(function(st, diagnostics)
  if not vim.tbl_contains(st.affectedTests or {}, "test_calc.py::test_report") then return false end
  for _, d in ipairs(diagnostics) do
    if d.file == "test_calc.py" and d.message:find("must run") then return true end
  end
  return false
end)
-- 7. :ReksRunAffectedTests runs them (pytest --reks in the project): nothing is left to run.
local done = nil
reks._on_command_done = function(name, err, result) done = { name = name, err = err and err.message, result = result } end
vim.cmd("ReksRunAffectedTests")
vim.wait(60000, function() return done ~= nil end, 100)
snapshots.after_run = published(function(st) return st.affected == 0 end)
snapshots.after_run.command = done
-- 8. :ReksExtremeAnalysis: pseudo-tested functions come back as diagnostics.
done = nil
vim.cmd("ReksExtremeAnalysis")
vim.wait(90000, function() return done ~= nil end, 100)
vim.wait(5000, function()
  for _, d in ipairs(diagnostics_now()) do
    if d.message:find("pseudo%-tested") then return true end
  end
  return false
end, 100)
snapshots.extreme = { command = done, diagnostics = diagnostics_now() }
report({ answers = answers, snapshots = snapshots, buffer = text() })

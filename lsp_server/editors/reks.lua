-- reks for Neovim's built-in LSP client (Neovim 0.7.2 and newer; tested on 0.7.2 and 0.11).
--
-- Install: `reks editor neovim -o ~/.config/nvim/lua/` (or `reks editor neovim > FILE`), then
-- in init.lua:
--
--   require("reks").setup({
--     python = "/path/to/venv/bin/python",  -- has reks installed; default $VIRTUAL_ENV/bin/python, else python3
--     settings = {                          -- the server's settings (same keys as VS Code's reks.*)
--       onSave = { "organizeImports" },     -- refactor-on-save (willSaveWaitUntil)
--       trustButVerify = true,
--       actions = { move = true },          -- per-action switches
--       defaultNames = { extractedMethod = "extracted_method" },
--       tests = { pytestArgs = {}, summary = "progress" },
--       extreme = { jobs = 0, testTimeout = 120, onDisk = true, verify = 0, scheduler = "" },
--     },
--     rename_after_extract = true,          -- :ReksExtract asks for the new name
--     echo_status = true,                   -- echo "N tests skipped by refactorings · M affected"
--     on_attach = function(client, bufnr) end,
--   })
--
-- It starts `python -m lsp_server` for Python buffers (vim.lsp.start on 0.8+, start_client +
-- buf_attach_client on 0.7; one server per project root, found by root_markers), and adds:
--   * prompts with vim.ui.select / vim.ui.input for what the server leaves to the client: the
--     destination of a move (code actions that come as the `reks.refactor.move` command), the
--     name after :ReksExtract;
--   * refactor-on-save on Neovim < 0.9, which does not send willSaveWaitUntil itself;
--   * the `reks/status` notification: require("reks").statusline() for 'statusline';
--   * :ReksRunAffectedTests, :ReksExtremeAnalysis [path], :ReksExplainWeakTests [path],
--     :ReksCommand {name} [args], :'<,'>ReksExtract [method|variable], :ReksStatus, :ReksRestart.
-- Rename, code actions and diagnostics use the built-in client (vim.lsp.buf.rename,
-- vim.lsp.buf.code_action, vim.diagnostic).
local M = {}

local uv = vim.uv or vim.loop

M.defaults = {
  -- Interpreter with reks installed; nil: $VIRTUAL_ENV/bin/python, then python3.
  python = nil,
  -- Full server command; nil: { python, "-m", "lsp_server" }.
  cmd = nil,
  filetypes = { "python" },
  -- Files or folders marking the project root (first match upwards from the buffer).
  root_markers = { "pyproject.toml", "setup.py", "setup.cfg", ".git" },
  -- Server settings (the `reks` section): actions, defaultNames, onSave, onSaveTimeout,
  -- trustButVerify, verifySkipped, verifySkippedAfter, extreme, tests. Sent as
  -- initializationOptions and workspace/didChangeConfiguration.
  settings = {},
  -- After :ReksExtract (or an extract code action), ask for the new name and rename it.
  rename_after_extract = true,
  -- Echo the status ("N tests skipped by refactorings · M affected") when it changes.
  echo_status = true,
  -- Called with (client, bufnr) when reks attaches to a buffer.
  on_attach = nil,
  -- Extra client capabilities merged into the defaults.
  capabilities = nil,
}

M.config = vim.deepcopy(M.defaults)
-- Latest `reks/status` payload: { skipped = n, affected = m, affectedTests = {...} }.
M.status = nil
-- Client ids by root (Neovim 0.7, where vim.lsp.start does not exist).
M._clients = {}

local NAME = "reks"

local function notify(message, level)
  vim.notify("reks: " .. message, level or vim.log.levels.INFO)
end

local function has_011()
  return vim.fn.has("nvim-0.11") == 1
end

-- Client method call working on 0.7 (client.request(...)) and 0.11+ (client:request(...)).
local function client_request(client, method, params, handler, bufnr)
  if has_011() then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_notify(client, method, params)
  if has_011() then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients()
  end
  return vim.lsp.get_active_clients()
end

--- The reks client attached to `bufnr` (current buffer when nil), or any reks client.
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local fallback
  for _, client in ipairs(all_clients()) do
    if client.name == NAME then
      if vim.lsp.buf_is_attached(bufnr, client.id) then
        return client
      end
      fallback = fallback or client
    end
  end
  return fallback
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function dirname(path)
  return vim.fn.fnamemodify(path, ":h")
end

--- The project root of `path`: the nearest folder upwards holding a root marker.
function M.find_root(path)
  local dir = vim.fn.isdirectory(path) == 1 and path or dirname(path)
  dir = vim.fn.fnamemodify(dir, ":p"):gsub("/$", "")
  local start = dir
  while dir ~= "" do
    for _, marker in ipairs(M.config.root_markers) do
      if exists(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = dirname(dir)
    if parent == dir then
      break
    end
    dir = parent
  end
  return start
end

local function python()
  if M.config.python then
    return M.config.python
  end
  local venv = vim.env.VIRTUAL_ENV
  if venv and venv ~= "" and vim.fn.executable(venv .. "/bin/python") == 1 then
    return venv .. "/bin/python"
  end
  return "python3"
end

function M.cmd()
  return M.config.cmd or { python(), "-m", "lsp_server" }
end

local function relpath(root, path)
  if path:sub(1, #root + 1) == root .. "/" then
    return path:sub(#root + 2)
  end
  return path
end

local function uri_path(uri)
  return vim.uri_to_fname(uri)
end

-- Prompts ------------------------------------------------------------------------------

-- What the server tells its clients (lsp_server/client_config.py): default names, the folders
-- that are not project code, status texts. By client id; false: the server has none.
local CLIENT_CONFIGURATION = "reks.clientConfiguration"
local server_configs = {}

local function initialize_configuration(client)
  local experimental = client.server_capabilities and client.server_capabilities.experimental
  local config = type(experimental) == "table" and experimental.reks or nil
  return type(config) == "table" and config or nil
end

--- Call `callback(config)` with what the server of `client` tells its clients: the result of
--- its `reks.clientConfiguration` command, else `capabilities.experimental.reks` of its
--- initialize result, else nil.
function M.server_configuration(client, callback)
  if not client then
    return callback(nil)
  end
  local cached = server_configs[client.id]
  if cached ~= nil then
    return callback(cached or nil)
  end
  local function done(config)
    server_configs[client.id] = config or false
    callback(config)
  end
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  if not (provider and vim.tbl_contains(provider.commands or {}, CLIENT_CONFIGURATION)) then
    return done(initialize_configuration(client))
  end
  client_request(client, "workspace/executeCommand", { command = CLIENT_CONFIGURATION, arguments = {} },
    function(err, result)
      done((not err and type(result) == "table") and result or initialize_configuration(client))
    end)
end

-- Is the root-relative `rel` in a folder the server's `exclusions` say is not project code?
local function is_excluded(rel, exclusions)
  if type(exclusions) ~= "table" then
    return false
  end
  local folders = {}
  for part in rel:gmatch("[^/]+") do
    folders[#folders + 1] = part
  end
  for index = 1, #folders - 1 do
    local name = folders[index]
    if vim.tbl_contains(exclusions.dirs or {}, name)
      or (index == 1 and vim.tbl_contains(exclusions.rootOnlyDirs or {}, name)) then
      return true
    end
    for _, suffix in ipairs(exclusions.dirSuffixes or {}) do
      if vim.endswith(name, suffix) then
        return true
      end
    end
  end
  return false
end

--- Candidate destinations of a move below `root`: module files, or package folders when
--- `folders` (moving a module into a package), outside the folders the server's `exclusions`
--- name (hidden folders are never listed). Root-relative, sorted.
function M.move_destinations(root, exclude, folders, exclusions)
  local found = {}
  for _, file in ipairs(vim.fn.globpath(root, "**/*.py", false, true)) do
    local rel = relpath(root, file)
    if not is_excluded(rel, exclusions) and file ~= exclude then
      if folders then
        if rel:match("/__init__%.py$") then
          found[#found + 1] = rel:gsub("/__init__%.py$", "")
        end
      else
        found[#found + 1] = rel
      end
    end
  end
  table.sort(found)
  return found
end

local OTHER = "Other (type a path)…"

--- Ask for a move destination: vim.ui.select over the modules, or a typed path.
function M.pick_destination(root, source, folders, callback, exclusions)
  local items = M.move_destinations(root, source, folders, exclusions)
  items[#items + 1] = OTHER
  vim.ui.select(items, { prompt = folders and "Move into package:" or "Move to module:" }, function(choice)
    if choice == nil then
      callback(nil)
    elseif choice == OTHER then
      vim.ui.input({ prompt = "Destination (path relative to the project): " }, function(text)
        callback(text ~= nil and text ~= "" and text or nil)
      end)
    else
      callback(choice)
    end
  end)
end

local function is_move_command(name)
  return name:match("[%._]move") ~= nil or name:match("^move") ~= nil or name:match("[%._]Move") ~= nil
end

-- Fill in a move's destination (the first argument's `destination` field) before the
-- command goes to the server.
local function complete_move(command, ctx, done)
  local args = command.arguments or {}
  local first = args[1]
  if type(first) ~= "table" or (first.destination ~= nil and first.destination ~= vim.NIL and first.destination ~= "") then
    return done(command)
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local root = client and client.config.root_dir or vim.fn.getcwd()
  local source = first.uri and uri_path(first.uri) or vim.api.nvim_buf_get_name(ctx.bufnr or 0)
  local module_move = first.module == true or (type(first.args) == "table" and first.args.module == true)
  local function with_destination(destination)
    if not destination then
      notify("move cancelled")
      return
    end
    local filled = vim.deepcopy(first)
    filled.destination = destination
    -- Also inside `args`: an `args` table emptied by JSON decoding (its null fields dropped)
    -- would otherwise go back to the server as a list.
    if type(filled.args) == "table" then
      filled.args.destination = destination
    end
    local new_args = { filled }
    for i = 2, #args do
      new_args[i] = args[i]
    end
    done({ title = command.title, command = command.command, arguments = new_args })
  end
  M.server_configuration(client, function(config)
    M.pick_destination(root, source, module_move, with_destination, config and config.exclusions)
  end)
end

--- Execute a server command (workspace/executeCommand), prompting for what it needs.
function M.execute(command, bufnr, on_result)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    notify("the server is not running for this buffer", vim.log.levels.ERROR)
    return
  end
  local function send(cmd)
    client_request(client, "workspace/executeCommand", { command = cmd.command, arguments = cmd.arguments },
      function(err, result)
        if err then
          notify(cmd.command .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        end
        if on_result then
          on_result(err, result)
        end
      end, bufnr)
  end
  if is_move_command(command.command) then
    complete_move(command, { client_id = client.id, bufnr = bufnr }, send)
  else
    send(command)
  end
end

-- Register vim.lsp.commands handlers for the server's move commands, so a code action that
-- comes as a command prompts for the destination instead of failing on the server.
local function register_command_handlers(client)
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  for _, name in ipairs(provider and provider.commands or {}) do
    if is_move_command(name) and vim.lsp.commands[name] == nil then
      vim.lsp.commands[name] = function(command, ctx)
        M.execute(command, ctx.bufnr)
      end
    end
  end
end

--- Server commands the reks client advertises.
function M.server_commands(bufnr)
  local client = M.client(bufnr)
  local provider = client and client.server_capabilities and client.server_capabilities.executeCommandProvider
  return provider and provider.commands or {}
end

local function find_command(patterns, bufnr)
  for _, pattern in ipairs(patterns) do
    for _, name in ipairs(M.server_commands(bufnr)) do
      if name == pattern or name:lower():match(pattern) then
        return name
      end
    end
  end
  return nil
end

-- Run the server command found by `patterns` (exact names first, then Lua patterns over
-- the advertised names). No argument: the server works on every workspace folder; `arg`
-- (a path or URI) narrows it, e.g. to the current file.
local function run_named(patterns, what, bufnr, arg, show_result)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local name = find_command(patterns, bufnr)
  if not name then
    notify("this server has no command to " .. what, vim.log.levels.ERROR)
    return
  end
  M.execute({ command = name, arguments = arg and { arg } or {} }, bufnr, function(err, result)
    if not err and show_result then
      vim.schedule(function()
        show_result(result)
      end)
    elseif not err and M.config.echo_status then
      vim.schedule(function()
        vim.api.nvim_echo({ { "reks: " .. what .. ": done" } }, false, {})
      end)
    end
    if M._on_command_done then
      M._on_command_done(name, err, result)
    end
  end)
end

local FAILURES_TITLE = "reks: failing tests"

--- After "Run affected tests": echo the passed/failed counts and put the failures in the
--- quickfix list (opened; a list of ours from an earlier run is emptied when all pass).
--- Returns the quickfix items.
function M.show_test_run(result)
  local items = {}
  for _, run in ipairs(result and result.roots or {}) do
    for _, failure in ipairs(run.failures or {}) do
      table.insert(items, {
        filename = vim.uri_to_fname(failure.uri),
        lnum = failure.line + 1,
        col = 1,
        type = "E",
        text = failure.nodeid .. ": " .. failure.message,
      })
    end
  end
  if #items > 0 then
    vim.fn.setqflist({}, " ", { title = FAILURES_TITLE, items = items })
    vim.cmd("copen")
  elseif vim.fn.getqflist({ title = 1 }).title == FAILURES_TITLE then
    vim.fn.setqflist({}, "r", { title = FAILURES_TITLE, items = {} })
    vim.cmd("cclose")
  end
  if M.config.echo_status then
    local message = (result and result.message) or "done"
    -- kept in :messages: the outcome of a run is worth finding again
    vim.api.nvim_echo({ { "reks: run affected tests: " .. message } }, true, {})
  end
  return items
end

function M.run_affected_tests(bufnr)
  run_named({ "reks.runAffectedTests", "affected" }, "run affected tests", bufnr, nil, M.show_test_run)
end

--- Extreme analysis (pseudo-tested functions); `path` narrows it to a file or folder.
function M.extreme_analysis(bufnr, path)
  run_named({ "reks.analyseWeakTests", "analy[sz]e", "extreme", "pseudo" }, "find pseudo-tested functions", bufnr, path)
end

--- Reneri: why pseudo-tested functions go unnoticed, with the test change that catches them.
function M.explain_weak_tests(bufnr, path)
  run_named({ "reks.explainWeakTests", "explain" }, "explain weak tests", bufnr, path)
end

-- Status ------------------------------------------------------------------------------

local function plural(n, word)
  return string.format("%d %s%s", n, word, n == 1 and "" or "s")
end

--- "N tests skipped by refactorings · M affected", or "" before the server said anything;
--- usable in 'statusline': %{v:lua.require'reks'.statusline()}
function M.statusline()
  local s = M.status
  if type(s) ~= "table" or type(s.skipped) ~= "number" or type(s.affected) ~= "number" then
    return ""
  end
  return string.format("%s skipped by refactorings · %d affected", plural(s.skipped, "test"), s.affected)
end

local function on_status(err, result)
  if err or type(result) ~= "table" then
    return
  end
  M.status = result
  vim.g.reks_status = M.statusline()
  if M.config.echo_status then
    vim.schedule(function()
      vim.api.nvim_echo({ { "reks: " .. M.statusline() } }, false, {})
    end)
  end
end

-- Extract with a name prompt ----------------------------------------------------------

local function offset_to_position(text, offset)
  local before = text:sub(1, offset)
  local line = select(2, before:gsub("\n", ""))
  local last_nl = before:match(".*()\n")
  local col = last_nl and (offset - last_nl) or offset
  return { line = line, character = col }
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

--- Offset (0-based) of the whole-word occurrence of `name` nearest to `near`.
function M.nearest_occurrence(text, name, near)
  local best
  local init = 1
  while true do
    local s, e = text:find(name, init, true)
    if not s then
      break
    end
    local before = text:sub(s - 1, s - 1)
    local after = text:sub(e + 1, e + 1)
    if not before:match("[%w_]") and not after:match("[%w_]") then
      local at = s - 1
      if best == nil or math.abs(at - near) < math.abs(best - near) then
        best = at
      end
    end
    init = s + 1
  end
  return best
end

local function default_name(kind)
  local names = M.config.settings.defaultNames or {}
  if kind:match("^refactor%.extract%.variable") then
    return names.extractedVariable or "extracted_variable"
  end
  return names.extractedMethod or "extracted_method"
end

-- After an extract applied with the default name, ask for the real one and rename it.
local function rename_extracted(bufnr, kind, near, new_name)
  local name = default_name(kind)
  local function do_rename(chosen)
    if not chosen or chosen == "" or chosen == name then
      return
    end
    local at = M.nearest_occurrence(buffer_text(bufnr), name, near)
    if not at then
      return
    end
    local pos = offset_to_position(buffer_text(bufnr), at)
    local client = M.client(bufnr)
    local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = pos, newName = chosen }
    client_request(client, "textDocument/rename", params, function(err, result, ctx)
      if err then
        notify("rename failed: " .. (err.message or ""), vim.log.levels.ERROR)
        return
      end
      if result then
        M.apply_edit(result, client)
      end
      if M._on_extract_done then
        M._on_extract_done(ctx)
      end
    end, bufnr)
  end
  if new_name then
    do_rename(new_name)
  else
    vim.ui.input({ prompt = "Name of the extracted code: ", default = name }, do_rename)
  end
end

local function apply_action(client, bufnr, action, after)
  local function finish(resolved)
    if resolved.edit then
      M.apply_edit(resolved.edit, client)
    end
    local command = resolved.command
    if type(command) == "table" then
      M.execute(command, bufnr, function()
        if after then
          after()
        end
      end)
    elseif after then
      after()
    end
  end
  if action.edit or action.data == nil then
    return finish(action)
  end
  client_request(client, "codeAction/resolve", action, function(err, resolved)
    if err then
      notify("code action failed: " .. (err.message or ""), vim.log.levels.ERROR)
      return
    end
    finish(resolved or action)
  end, bufnr)
end

--- Run the code action of `kind` on the given 1-based line range (visual selection when
--- called from :'<,'>ReksExtract), then, for an extract, rename the new name.
--- opts: { kind = "refactor.extract.method", line1, line2, col1, col2, name }
function M.code_action(opts)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    notify("the server is not running for this buffer", vim.log.levels.ERROR)
    return
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, opts.line1 - 1, opts.line2, false)
  local start = { line = opts.line1 - 1, character = opts.col1 or 0 }
  local stop = { line = opts.line2 - 1, character = opts.col2 or #(lines[#lines] or "") }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = start, ["end"] = stop },
    context = { diagnostics = {}, only = { opts.kind } },
  }
  local near = #table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, start.line, false), "\n")
    + (start.line > 0 and 1 or 0) + start.character
  client_request(client, "textDocument/codeAction", params, function(err, actions)
    if err or not actions or #actions == 0 then
      notify("no " .. opts.kind .. " here" .. (err and (": " .. err.message) or ""), vim.log.levels.WARN)
      return
    end
    local function run(action)
      local kind = action.kind or opts.kind
      apply_action(client, bufnr, action, function()
        if kind:match("^refactor%.extract") and M.config.rename_after_extract then
          rename_extracted(bufnr, kind, near, opts.name)
        end
      end)
    end
    -- The action of exactly this kind wins over its variants (`.similar`, ...).
    local exact, matching = {}, {}
    for _, action in ipairs(actions) do
      if action.kind == opts.kind then
        exact[#exact + 1] = action
      elseif action.kind == nil or vim.startswith(action.kind, opts.kind .. ".") then
        matching[#matching + 1] = action
      end
    end
    if #exact > 0 then
      matching = exact
    end
    if #matching == 1 then
      run(matching[1])
    elseif #matching > 1 then
      vim.ui.select(matching, {
        prompt = "Code action:",
        format_item = function(a)
          return a.title
        end,
      }, function(choice)
        if choice then
          run(choice)
        end
      end)
    end
  end, bufnr)
end

-- Refactor-on-save for clients without willSaveWaitUntil (Neovim before 0.9) -------------

local function native_will_save()
  local sync = vim.lsp.protocol.make_client_capabilities().textDocument.synchronization
  return sync and sync.willSaveWaitUntil == true
end

local function server_wants_will_save(client)
  local sync = client.server_capabilities and client.server_capabilities.textDocumentSync
  return type(sync) == "table" and sync.willSaveWaitUntil == true
end

-- Ask the server for the edits to make before the buffer is written (reason 1: manual save)
-- and apply them, so the refactorings configured in `onSave` run on every :write.
local function will_save_wait_until(client, bufnr)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, reason = 1 }
  local response, err = client.request_sync("textDocument/willSaveWaitUntil", params, 5000, bufnr)
  if err then
    notify("refactor-on-save: " .. tostring(err), vim.log.levels.WARN)
    return
  end
  if response and response.err then
    notify("refactor-on-save failed: " .. (response.err.message or ""), vim.log.levels.WARN)
  elseif response and type(response.result) == "table" and #response.result > 0 then
    vim.lsp.util.apply_text_edits(response.result, bufnr, client.offset_encoding or "utf-16")
  end
end

local function install_will_save(client, bufnr)
  if native_will_save() or not server_wants_will_save(client) then
    return
  end
  vim.api.nvim_create_autocmd("BufWritePre", {
    group = vim.api.nvim_create_augroup("reks_will_save_" .. bufnr, { clear = true }),
    buffer = bufnr,
    callback = function()
      will_save_wait_until(client, bufnr)
    end,
  })
end

-- Edits that need confirmation ------------------------------------------------------
-- Neovim (0.10, 0.11 included) applies AnnotatedTextEdits like plain ones and ignores
-- `needsConfirmation`. reks marks the changes of a rename it is not sure about (a string
-- that may name the renamed attribute, a name of unknown type) that way, so this module
-- announces change-annotation support and asks before applying such changes.

local function needs_confirmation(edit, annotations)
  local id = edit.annotationId
  return id ~= nil and annotations[id] ~= nil and annotations[id].needsConfirmation == true
end

--- The changes of `edit` that need confirmation: { path, line, character, label } (1-based).
function M.uncertain_changes(edit)
  local annotations = edit.changeAnnotations or {}
  local out = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    for _, text_edit in ipairs(change.edits or {}) do
      if needs_confirmation(text_edit, annotations) then
        out[#out + 1] = {
          path = vim.uri_to_fname(change.textDocument.uri),
          line = text_edit.range.start.line + 1,
          character = text_edit.range.start.character + 1,
          label = annotations[text_edit.annotationId].label or "",
        }
      end
    end
  end
  return out
end

--- `edit` without the changes that need confirmation.
function M.certain_only(edit)
  local annotations = edit.changeAnnotations or {}
  local copy = vim.deepcopy(edit)
  for _, change in ipairs(copy.documentChanges or {}) do
    if change.edits then
      local kept = {}
      for _, text_edit in ipairs(change.edits) do
        if not needs_confirmation(text_edit, annotations) then
          kept[#kept + 1] = text_edit
        end
      end
      change.edits = kept
    end
  end
  copy.changeAnnotations = nil
  return copy
end

--- Apply a WorkspaceEdit from reks; when some changes need confirmation, ask first:
--- all of them, only the certain ones, or nothing. `choose` (tests) replaces the prompt.
function M.apply_edit(edit, client, choose)
  local encoding = client and client.offset_encoding or "utf-16"
  local uncertain = M.uncertain_changes(edit)
  if #uncertain == 0 then
    vim.lsp.util.apply_workspace_edit(edit, encoding)
    return "applied"
  end
  local lines = {}
  for _, item in ipairs(uncertain) do
    lines[#lines + 1] = string.format("%s:%d:%d %s", item.path, item.line, item.character, item.label)
  end
  local choices = { "Apply all, uncertain changes too", "Apply only the certain changes", "Cancel" }
  local function decide(choice)
    if choice == choices[1] then
      vim.lsp.util.apply_workspace_edit(edit, encoding)
    elseif choice == choices[2] then
      vim.lsp.util.apply_workspace_edit(M.certain_only(edit), encoding)
    end
    return choice
  end
  if choose then
    return decide(choose(choices, lines))
  end
  notify(#uncertain .. " uncertain change(s):\n" .. table.concat(lines, "\n"))
  vim.ui.select(choices, { prompt = "reks: this edit has uncertain changes" }, decide)
  return "asked"
end

local function on_rename(err, result, ctx)
  if err then
    notify("rename failed: " .. (err.message or tostring(err)), vim.log.levels.ERROR)
    return
  end
  if result then
    M.apply_edit(result, vim.lsp.get_client_by_id(ctx.client_id))
  end
end

-- Starting the server -----------------------------------------------------------------

local function client_config(root)
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  if not native_will_save() then
    -- This module sends willSaveWaitUntil itself on such clients (BufWritePre).
    capabilities.textDocument.synchronization.willSaveWaitUntil = true
  end
  -- Annotated edits are confirmed by M.apply_edit (rename, code actions).
  capabilities.workspace.workspaceEdit.changeAnnotationSupport = { groupsOnLabel = true }
  if M.config.capabilities then
    capabilities = vim.tbl_deep_extend("force", capabilities, M.config.capabilities)
  end
  return {
    name = NAME,
    cmd = M.cmd(),
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ":t") } },
    capabilities = capabilities,
    init_options = M.config.settings,
    settings = { reks = M.config.settings },
    handlers = { ["reks/status"] = on_status, ["textDocument/rename"] = on_rename },
    on_init = function(client)
      client_notify(client, "workspace/didChangeConfiguration", { settings = { reks = M.config.settings } })
    end,
    on_attach = function(client, bufnr)
      register_command_handlers(client)
      install_will_save(client, bufnr)
      if M.config.on_attach then
        M.config.on_attach(client, bufnr)
      end
    end,
  }
end

local function legacy_start(bufnr, root)
  local id = M._clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      notify("could not start " .. table.concat(M.cmd(), " "), vim.log.levels.ERROR)
      return nil
    end
    M._clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Start (or reuse) the server for the project of `bufnr` and attach it to the buffer.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = M.find_root(name ~= "" and name or vim.fn.getcwd())
  if vim.fn.executable(M.cmd()[1]) ~= 1 then
    notify("cannot run " .. M.cmd()[1] .. ": set `python` in require('reks').setup{}", vim.log.levels.ERROR)
    return nil
  end
  if vim.lsp.start then
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  return legacy_start(bufnr, root)
end

--- Stop every reks client and start again for the current buffer.
function M.restart()
  for _, client in ipairs(all_clients()) do
    if client.name == NAME then
      if has_011() then
        client:stop()
      else
        client.stop()
      end
    end
  end
  M._clients = {}
  vim.defer_fn(function()
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.config.filetypes, vim.bo[buf].filetype) then
        M.attach(buf)
      end
    end
  end, 500)
end

local function user_commands()
  local create = vim.api.nvim_create_user_command
  create("ReksRunAffectedTests", function()
    M.run_affected_tests()
  end, { desc = "reks: run the tests affected by edits" })
  create("ReksExtremeAnalysis", function(args)
    M.extreme_analysis(nil, args.args ~= "" and vim.fn.expand(args.args) or nil)
  end, { nargs = "?", complete = "file", desc = "reks: find pseudo-tested functions (optional: a file or folder)" })
  create("ReksExplainWeakTests", function(args)
    M.explain_weak_tests(nil, args.args ~= "" and vim.fn.expand(args.args) or nil)
  end, { nargs = "?", complete = "file", desc = "reks: why pseudo-tested functions go unnoticed" })
  create("ReksCommand", function(args)
    local name, rest = args.args:match("^(%S+)%s*(.*)$")
    local arguments = {}
    for word in rest:gmatch("%S+") do
      arguments[#arguments + 1] = vim.fn.expand(word)
    end
    M.execute({ command = name, arguments = arguments })
  end, {
    nargs = "+",
    complete = function()
      return M.server_commands()
    end,
    desc = "reks: run a server command",
  })
  create("ReksExtract", function(args)
    local kind = args.args ~= "" and args.args or "method"
    M.code_action({ kind = "refactor.extract." .. kind, line1 = args.line1, line2 = args.line2 })
  end, {
    nargs = "?",
    range = true,
    complete = function()
      return { "method", "variable" }
    end,
    desc = "reks: extract the selected lines into a method (or variable), then name it",
  })
  create("ReksStatus", function()
    print("reks: " .. (M.statusline() ~= "" and M.statusline() or "no refactoring yet"))
  end, { desc = "reks: tests skipped by refactorings and affected by edits" })
  create("ReksRestart", function()
    M.restart()
  end, { desc = "reks: restart the language server" })
end

--- Configure reks and start it for Python buffers (already open ones included).
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  local group = vim.api.nvim_create_augroup("reks", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  user_commands()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.config.filetypes, vim.bo[buf].filetype) then
      M.attach(buf)
    end
  end
end

return M

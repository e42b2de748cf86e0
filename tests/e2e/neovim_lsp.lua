-- Drives Neovim's built-in LSP client against `graphsafe lsp`: open a file with a GS401 hazard,
-- wait for graphsafe's diagnostic, apply its "Suppress GS401 on this line" code action, check
-- the buffer's text and that the diagnostic goes away. Inputs come from the environment;
-- the verdict goes to $GRAPHSAFE_E2E_RESULT ("ok" or what failed), then Neovim exits.
local binary = vim.env.GRAPHSAFE_BIN
local fixture = vim.env.GRAPHSAFE_FIXTURE
local result_file = vim.env.GRAPHSAFE_E2E_RESULT

local function finish(verdict)
  local handle = io.open(result_file, 'w')
  handle:write(verdict .. '\n')
  handle:close()
  vim.cmd(verdict == 'ok' and 'qall!' or 'cquit 1')
end

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(fixture))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = 'graphsafe',
    cmd = { binary, 'lsp' },
    root_dir = vim.fn.fnamemodify(fixture, ':h'),
  })
  if not client_id then return 'the client did not start' end
  vim.lsp.buf_attach_client(buf, client_id)

  if not vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then
    return 'no diagnostics within 15 s'
  end
  local diagnostic = vim.diagnostic.get(buf)[1]
  local lsp = (diagnostic.user_data or {}).lsp or {}
  local code = diagnostic.code or lsp.code
  if diagnostic.source ~= 'graphsafe' then return 'source: ' .. tostring(diagnostic.source) end
  if code ~= 'GS401' then return 'code: ' .. tostring(code) end
  if diagnostic.severity ~= vim.diagnostic.severity.ERROR then return 'not an error' end
  if diagnostic.lnum ~= 5 then return 'line: ' .. diagnostic.lnum end

  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = {
      start = { line = diagnostic.lnum, character = diagnostic.col },
      ['end'] = { line = diagnostic.lnum, character = diagnostic.col },
    },
    context = { diagnostics = { lsp } },
  }
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000)
  local action
  for _, response in pairs(responses or {}) do
    for _, candidate in ipairs(response.result or {}) do
      if candidate.title == 'Suppress GS401 on this line' then action = candidate end
    end
  end
  if not action then return 'no "Suppress GS401 on this line" code action' end
  vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')

  local line = vim.api.nvim_buf_get_lines(buf, 5, 6, false)[1]
  local expected = '    y = x.sum().item()  # graphsafe: ignore[GS401]'
  if line ~= expected then return 'line after the code action: ' .. line end

  -- The edit reaches the server as didChange; the finding is suppressed.
  if not vim.wait(15000, function() return #vim.diagnostic.get(buf) == 0 end, 50) then
    return 'the diagnostic stayed after the suppression'
  end
  return 'ok'
end

local ok, verdict = pcall(run)
finish(ok and verdict or ('error: ' .. tostring(verdict)))

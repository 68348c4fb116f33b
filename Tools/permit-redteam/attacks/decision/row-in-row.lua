-- A row nested in a row {{DEPTH}} times, with a metatable trap on the innermost one.
local row = setmetatable({ action = "inform", title = "T" }, { __index = function() error("read through a metatable") end })
for _ = 1, {{DEPTH}} do row = { action = "inform", title = "T", row = row } end
return { name = "redteam", decide = function(ctx)
  return { action = "inform", title = "T", message = "M", button = "OK", row = row }
end }

-- ask-options: asks for `params.options` at launch while the real dialog is still to come
-- (not determined, or an App Clip's ephemeral grant) and does nothing else. The
-- fidelity scenarios use it to show what iOS grants for a given request, without a pack's
-- primer in the way.
return {
  name = "ask-options",
  params = { options = { "alert" } },

  decide = function(ctx)
    if ctx.event.name == "app_launch" and (ctx.status == "not_determined" or ctx.status == "ephemeral") then
      -- params are read-only; the decision takes a plain list of its own.
      local options = {}
      for i, option in ipairs(ctx.params.options) do options[i] = option end
      return { action = "request_permission", options = options, reason = "fidelity: ask at launch" }
    end
    return nil
  end,
}

-- The calibration's cold ask: the system dialog at the first launch, with no primer, and
-- never again. What the published opt-in averages of apps that ask at launch measure;
-- docs/simulate.md ("Calibration") says how the default model is checked against it.
return {
  name = "cold-ask",
  decide = function(ctx)
    if ctx.event.name == "app_launch" and ctx.status == "not_determined"
        and ctx.history.system_prompt.shown == 0 then
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               reason = "first launch: ask at once" }
    end
    return nil
  end,
}

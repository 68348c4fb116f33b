/// A policy with two parameters, `ask` and `quiet`, that sweeps and comparisons vary.
public enum KnobPolicy {
    /// Asks at the first launch when `ask` is on, for provisional (quiet) when `quiet` is on: in
    /// a fixed model the most users who can receive alerts come from ask=true, quiet=false, the
    /// most quiet ones from ask=true, quiet=true, and nobody is asked with ask=false.
    public static let source = """
        return {
          name = "knob",
          params = { ask = true, quiet = false },
          decide = function(ctx)
            if ctx.event.name ~= "app_launch" or ctx.status ~= "not_determined" or not ctx.params.ask then return nil end
            if ctx.params.quiet and ctx.capabilities.provisional then
              return { action = "request_permission", options = { "alert", "provisional" }, reason = "quiet" }
            end
            return { action = "request_permission", options = { "alert" }, reason = "loud" }
          end,
        }
        """
}

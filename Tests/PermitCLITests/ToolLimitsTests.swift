import Foundation
import PermitLua
import Testing

@testable import PermitCLI

/// The tool runs policies under the app's limits, with a deadline margin of its own: a second,
/// not the app's 5 ms, since it holds no app's thread and runs on shared machines where a
/// healthy load kept off the processor overran 55 ms (docs/security.md, "The deadline").
@Suite struct ToolLimitsTests {
    @Test func theToolKeepsTheAppsLimitsWithALongerDeadlineMargin() throws {
        let limits = try LimitOptions.parse([]).limits
        var app = LuaLimits.default
        #expect(app.deadlineMarginMilliseconds == 5 * LuaLimits.instrumentedSlowdown)
        #expect(limits.deadlineMarginMilliseconds == 1000)
        app.deadlineMarginMilliseconds = limits.deadlineMarginMilliseconds
        #expect(limits == app, "every other limit is the app's")
        // The flags change what they name and keep the tool's margin.
        let raised = try LimitOptions.parse(["--time-limit", "80", "--instruction-budget", "5000"]).limits
        #expect(raised.timeLimitMilliseconds == 80)
        #expect(raised.instructionsPerCall == 5000)
        #expect(raised.deadlineMarginMilliseconds == 1000)
        // The loaders the verbs use by default have it too.
        #expect(LuaLimits.tool.deadlineMarginMilliseconds == 1000)
    }
}

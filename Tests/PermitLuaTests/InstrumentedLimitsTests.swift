import Foundation
import Testing

@testable import PermitLua

/// A sanitizer build stretches the wall-clock defaults, and only those: the run's results then
/// depend on the policy, not on how much slower the instrumented build runs on a loaded machine.
@Suite struct InstrumentedLimitsTests {
    /// `make sanitize` sets PERMIT_SANITIZER for the run it instruments; the shim's own compile
    /// flags must say the same, or the defaults are sized for the wrong build.
    @Test func theShimKnowsItsBuildIsInstrumented() {
        let sanitized = ProcessInfo.processInfo.environment["PERMIT_SANITIZER"] != nil
        #expect(LuaLimits.instrumentedSlowdown == (sanitized ? 10 : 1))
    }

    @Test func onlyTheWallClockDefaultsAreStretched() {
        let factor = LuaLimits.instrumentedSlowdown
        let limits = LuaLimits.default
        #expect(limits.timeLimitMilliseconds == 50 * factor)
        #expect(limits.deadlineMarginMilliseconds == 5 * factor)
        #expect(limits.instructionsPerCall == 2_000_000)
        #expect(limits.memoryBytes == 4 << 20)
        // A limit the host gives is the limit, in any build.
        let given = LuaLimits(timeLimitMilliseconds: 50, deadlineMarginMilliseconds: 5)
        #expect(given.timeLimitMilliseconds == 50)
        #expect(given.deadlineMarginMilliseconds == 5)
    }
}

import Testing

@testable import PermitCore

@Suite struct DecisionCoverageTests {
    @Test func returnLinesAreTheWordReturnOutsideCommentsWithinTheSpan() {
        let source = """
            local function f() return 1 end
            decide = function(ctx)
              local returned = 1 -- return in a comment
              if x then return { action = "none" } end
              return {
                action = "none",
              }
            end
            """
        #expect(DecisionCoverage.returnLines(in: source, from: 2, to: 8) == [4, 5])
    }

    @Test func aCallEndingBelowItsReturnCountsForTheReturnAndCountsMerge() {
        var coverage = DecisionCoverage(file: "p.lua", returnLines: [4, 5, 9])
        coverage.record(line: 7, action: "none", reason: "spread")
        coverage.record(line: 4, action: "soft_prompt", reason: nil)
        #expect(
            coverage.counts == [
                .init(line: 5, action: "none", reason: "spread"): 1, .init(line: 4, action: "soft_prompt", reason: nil): 1,
            ])
        #expect(coverage.neverReached == [9])
        let merged = coverage.merged(with: coverage)
        #expect(merged.counts[.init(line: 5, action: "none", reason: "spread")] == 2)
        #expect(merged.reachedReturnCount == 2)
    }
}

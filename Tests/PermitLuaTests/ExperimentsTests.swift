import PermitCore
import Testing

@testable import PermitLua

/// A policy's `experiments` table: read at load, every mistake with its file and line, and the
/// install's arms in `ctx.user.arms` on the warm path as on the general one.
@Suite struct ExperimentsTests {
    static func load(_ experiments: String, decide: String = "return nil") -> Result<LuaPolicy, PolicyError> {
        Result { () throws(PolicyError) -> LuaPolicy in
            try LuaPolicy(
                source: """
                    return {
                      name = "arms",
                      experiments = \(experiments),
                      decide = function(ctx) \(decide) end,
                    }
                    """, chunkName: "arms.lua", limits: testLimits)
        }
    }

    @Test func experimentsAreReadSortedWithTheirWeights() throws {
        let policy = try Self.load("{ first_ask = { soft = 30, quiet = 70 }, copy = { a = 1 } }").get()
        #expect(policy.experiments.map(\.name) == ["copy", "first_ask"])
        #expect(policy.experiments[1].arms == [.init(name: "quiet", weight: 70), .init(name: "soft", weight: 30)])
    }

    @Test(arguments: [
        ("{ first_ask = { quiet = 0 } }", 3, "policy.experiments.first_ask.quiet", "whole number from 1"),
        ("{ first_ask = { quiet = 2.5 } }", 3, "policy.experiments.first_ask.quiet", "whole number from 1"),
        ("{ first_ask = {} }", 3, "policy.experiments.first_ask", "at least one arm"),
        ("{ first_ask = 50 }", 3, "policy.experiments.first_ask", "table of arms"),
        ("{ [\"first ask\"] = { a = 1 } }", 3, "policy.experiments", "identifiers"),
        ("{ first_ask = { [1] = 50 } }", 3, "policy.experiments.first_ask", "identifiers"),
        ("5", 3, "policy.experiments", "expected a table"),
    ])
    func mistakesNameTheLineAndField(experiments: String, line: Int, field: String, message: String) {
        guard case .failure(let error) = Self.load(experiments) else {
            Issue.record("\(experiments) loaded")
            return
        }
        #expect(error.file == "arms.lua")
        #expect(error.line == line, "\(error)")
        #expect(error.field == field, "\(error)")
        #expect(error.message.contains(message), "\(error)")
    }

    /// Over several lines, an arm's error points at the arm's own line.
    @Test func anArmsLineIsItsOwn() {
        let result = Result { () throws(PolicyError) -> LuaPolicy in
            try LuaPolicy(
                source: """
                    return {
                      name = "arms",
                      experiments = {
                        first_ask = {
                          quiet = 50, -- the quiet arm
                          soft = -1,
                        },
                      },
                      decide = function(ctx) return nil end,
                    }
                    """, chunkName: "arms.lua", limits: testLimits)
        }
        guard case .failure(let error) = result else {
            Issue.record("loaded")
            return
        }
        #expect(error.description.hasPrefix("arms.lua:6: policy.experiments.first_ask.soft:"), "\(error)")
    }

    /// The policy reads its arm; both paths build the same `ctx.user`.
    @Test func thePolicyReadsItsArm() throws {
        let policy = try Self.load(
            "{ first_ask = { quiet = 50, soft = 50 } }",
            decide: "return { action = 'none', reason = ctx.user.arms.first_ask .. '/' .. tostring(ctx.user.bucket) }"
        ).get()
        var ledger = Ledger()
        ledger.arms = ["first_ask": "soft"]
        let context = FastPathTests.context(.appLaunch, history: ledger)
        #expect(try policy.decide(context)?.reason == "soft/42")
        let contexts = try policy.contextsForTesting(context)
        #expect(contexts.fast == contexts.general)
    }
}

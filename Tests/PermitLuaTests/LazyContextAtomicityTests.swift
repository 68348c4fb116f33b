import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// Building ctx's lazy fields is atomic: an out-of-memory error at any step of a build leaves
/// every lazy key either built and known to be built, or absent and still lazy. Were a key
/// left in place but not marked built, a later build would overwrite what the policy assigned
/// to it in the meantime.
///
/// Each case injects an allocation failure at every step of the call in turn (the 1st growth,
/// the 2nd, ...) until a call runs without reaching it.
@Suite struct LazyContextAtomicityTests {
    /// Fills `table`'s spare slots with `extra` keys (so a build must grow it, which can fail),
    /// builds it under `pcall` (the injected failure may interrupt it), assigns every lazy key,
    /// builds again, and reports what the keys hold.
    static func probe(table: String, keys: [String], extra: Int) -> String {
        let assignments = keys.map { "\(table).\($0) = 'mine-\($0)'" }.joined(separator: " ")
        let readBack = keys.map { "tostring(\(table).\($0))" }.joined(separator: ", ")
        return """
                local t = \(table)
                for i = 1, \(extra) do t['extra' .. i] = i end
                local interrupted = not pcall(next, t)
                \(assignments)
                pcall(next, t)
                return { action = 'none', reason = table.concat({ \(readBack) }, ' '), remember = { interrupted = interrupted } }
            """
    }

    static let cases: [(table: String, keys: [String])] = [
        ("ctx", ["history", "settings", "state", "user"]),
        ("ctx.history", ["features", "settings_prompt", "soft_prompt", "state", "system_prompt"]),
    ]

    @Test(arguments: [0, 1])
    func anOutOfMemoryErrorMidBuildNeverOverwritesWhatThePolicyAssigned(caseIndex: Int) throws {
        let (table, keys) = Self.cases[caseIndex]
        let expected = keys.map { "mine-\($0)" }.joined(separator: " ")
        var interruptedBuilds = 0
        for extra in 0...6 {
            let policy = try FastPathTests.policy(Self.probe(table: table, keys: keys, extra: extra))
            let context = FastPathTests.context(.appLaunch, history: LazyContextTests.ledger)
            var step = 1
            while true {
                let (result, refused) = policy.decideFailingAllocationForTesting(step, context)
                switch result {
                case .success(let decision):
                    #expect(decision?.reason == expected, "extra keys \(extra), allocation \(step) refused")
                    if decision?.remember["interrupted"] == .some(.bool(true)) { interruptedBuilds += 1 }
                case .failure(let error):
                    // The failure hit outside the protected build: the call fails as out of memory.
                    #expect(refused)
                    #expect(error.kind == .memory, "extra keys \(extra), allocation \(step): \(error)")
                }
                #expect(policy.stackTopForTesting == 0)
                if !refused { break }
                step += 1
                if step > 10_000 {
                    Issue.record("the call never ran without reaching the injected failure")
                    break
                }
            }
            // With nothing refused the call is the plain one.
            let plain = try policy.decide(context)
            #expect(plain?.reason == expected)
            #expect(plain?.remember["interrupted"] == .some(.bool(false)))
        }
        // The injection did reach the build itself, not only the code around it.
        #expect(interruptedBuilds > 0)
    }
}

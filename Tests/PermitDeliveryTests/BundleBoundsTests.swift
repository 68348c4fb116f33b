import Foundation
import PermitCore
import PermitLua
import Testing

@testable import PermitDelivery

/// Installing a bundle runs its policy's main chunk under the limits of a call, so a bundle can
/// never block the engine's events: one whose load would not end, or whose file is too big to
/// compile within the limit, is refused and the policy before it keeps serving.
@Suite struct BundleBoundsTests {
    let key = BundleSigningKey()

    @Test func aMainChunkThatWouldNotEndIsRefusedWithinTheLimit() async throws {
        let source = try source(key: key)
        let engine = try engine(source)
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        let looping = """
            table.concat(setmetatable({}, { __index = table.concat }), "", 1, 1 << 40)
            \(taggedPolicy("v2"))
            """
        let started = Date()
        let refusal = expectRefusal(.policyInvalid) { try source.install(bundle(2, looping, key: key)) }
        #expect(Date().timeIntervalSince(started) < 5, "the install took \(Date().timeIntervalSince(started)) s")
        // Whichever runs out first: each call is charged, and the clock is read every 16th.
        let text = refusal?.description ?? ""
        #expect(text.contains("time limit") || text.contains("instruction budget"), "\(text)")
        let tooBig = "local a = ... return " + String(repeating: "a and ", count: 60_000) + "a\n"
        let big = expectRefusal(.policyInvalid) { try source.install(bundle(3, tooBig, key: key)) }
        #expect(big?.description.contains("LuaLimits.maxSourceBytes") == true, "\(String(describing: big))")
        #expect(source.status.serving.version == 1)
        let outcome = await engine.handle(.appForeground)
        #expect(tags(in: outcome.trace) == ["v1"])
    }
}

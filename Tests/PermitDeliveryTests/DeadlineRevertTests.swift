import Foundation
import PermitCore
import Testing

@testable import PermitDelivery
@testable import PermitLua

/// A delivered policy whose call overran the deadline is reverted at once: its VM is gone, so
/// waiting for the breaker's share of errors would only fail more events.
@Suite struct DeadlineRevertTests {
    /// `decide` calls the function it was handed once (through `decide` itself).
    static let stalling = """
        local stall
        return {
          name = "stalling",
          decide = function(ctx)
            if type(ctx) == "function" then
              stall = ctx
              return nil
            end
            if stall then stall() end
            return { action = "none", reason = "stalling" }
          end,
        }
        """

    @Test func anOverrunRevertsToTheLastGoodPolicyAtOnce() throws {
        let key = BundleSigningKey()
        let source = try source(key: key)
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        try source.install(bundle(2, Self.stalling, key: key))
        let policy = try #require(source.current as? LuaPolicy)
        policy.runtime.withLock { runtime in
            let stall = try! runtime.vm.makeHostFunction { _ in
                Thread.sleep(forTimeInterval: 5)
                return []
            }
            _ = try! runtime.vm.call(runtime.decide, [.ref(stall)])
        }
        let version = try OSVersion(parsing: "17.0")
        let context = PolicyContext(
            event: .appForeground, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            now: 1_767_600_000)
        #expect(throws: PolicyError.self) { _ = try source.decide(context) }
        let status = source.status
        #expect(status.serving.version == 1)
        #expect(status.revokedVersions == [2])
        #expect(status.events.last?.kind == .reverted)
        #expect(status.events.last?.message.contains("held its thread past the deadline") == true, "\(status.events)")
        #expect(try source.decide(context)?.reason == "v1")
    }
}

import Foundation
import PermitCore
import PermitLua
import PermitSimulator
import Testing

@testable import PermitDelivery

/// 2026-01-05 08:00 UTC, the scenarios' default start.
let start = Date(timeIntervalSince1970: 1_767_600_000)

/// A policy tagged `tag` that logs which version made each call, so a test can tell whether
/// one event ran on one policy.
func taggedPolicy(_ tag: String) -> String {
    """
    return {
      name = "\(tag)",
      decide = function(ctx)
        permit.log("decide \(tag)")
        return { action = "none", reason = "\(tag)" }
      end,
      plan_reminders = function(ctx)
        permit.log("plan \(tag)")
        return {}
      end,
    }
    """
}

/// A policy that raises on every decision.
let failingPolicy = """
    return {
      name = "broken",
      decide = function(ctx) error("boom") end,
    }
    """

/// Bundle bytes for `source` (params `{}`), signed when `key` is given.
func bundle(
    _ version: Int64, _ source: String, pack: String = "demo", key: BundleSigningKey? = nil,
    created: Date = start, expires: Date? = nil, minimumEngine: EngineVersion = .current, params: String = "{}"
) throws -> Data {
    var bundle = try PolicyBundle.make(
        pack: pack, version: version, minimumEngine: minimumEngine, createdAt: created, expiresAt: expires,
        policy: Data(source.utf8), params: Data(params.utf8))
    if let key { bundle = try bundle.signed(with: key) }
    return bundle.encoded()
}

/// The built-in policy of the tests' app.
func builtInPolicy() throws -> LuaPolicy {
    try LuaPolicy(source: taggedPolicy("builtin"), chunkName: "builtin/policy.lua")
}

func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-delivery-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func source(
    key: BundleSigningKey, directory: URL? = nil, builtIn: (any Policy)? = nil,
    breaker: CircuitBreakerConfiguration = CircuitBreakerConfiguration(), clock: ManualClock = ManualClock(start)
) throws -> PolicySource {
    PolicySource(
        builtIn: try builtIn ?? builtInPolicy(),
        configuration: PolicySource.Configuration(
            pack: "demo", trust: .keys([key.publicKey]), directory: directory, breaker: breaker, clock: clock))
}

/// An engine on an iOS 17 device where notifications are authorized (so reminders are planned).
func engine(_ policy: any Policy, clock: ManualClock = ManualClock(start)) throws -> PermissionEngine {
    let platform = Platform(version: try OSVersion(parsing: "17.0"))
    let device = try SimulatedDevice(platform: platform, clock: clock, authorization: .authorized)
    return PermissionEngine(
        policy: policy, client: device, platform: platform, clock: clock,
        configuration: EngineConfiguration(foregroundRechecks: []))
}

/// The policy tags an outcome's trace names (`decide v3`, `plan v3` → ["v3"]).
func tags(in trace: String) -> Set<String> {
    Set(
        trace.split(separator: "\n").compactMap { line in
            line.split(separator: " ").last.map(String.init)
        })
}

/// Asserts that `body` throws a `BundleError` of `kind`; returns it.
@discardableResult
func expectRefusal(
    _ kind: BundleError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> BundleError? {
    do {
        try body()
        Issue.record("expected a \(kind) refusal, the bundle was accepted", sourceLocation: sourceLocation)
        return nil
    } catch let error as BundleError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a BundleError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

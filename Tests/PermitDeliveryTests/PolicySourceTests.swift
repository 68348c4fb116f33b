import Foundation
import PermitCore
import PermitLua
import PermitSimulator
import PermitTestSupport
import Testing

@testable import PermitDelivery

@Suite struct PolicySourceTests {
    let key = BundleSigningKey()

    @Test func genuineBundleInstallsAndServesTheNextEvent() async throws {
        let source = try source(key: key)
        let engine = try engine(source)
        let before = await engine.handle(.appLaunch)
        #expect(tags(in: before.trace) == ["builtin"])
        let manifest = try source.install(bundle(1, taggedPolicy("v1"), key: key))
        #expect(manifest.version == 1)
        #expect(source.status.serving == .bundle(pack: "demo", version: 1, signer: key.keyID))
        #expect(source.status.fallback == .builtIn(name: "builtin"))
        #expect(source.status.events.last?.kind == .installed)
        let after = await engine.handle(.appForeground)
        #expect(tags(in: after.trace) == ["v1"])
        #expect(after.decision.reason == "v1")
    }

    @Test func unsignedBundleWithKeysConfiguredIsRefused() async throws {
        let source = try source(key: key)
        let refusal = expectRefusal(.unsigned) { try source.install(bundle(1, taggedPolicy("v1"))) }
        #expect(refusal != nil)
        #expect(source.status.serving == .builtIn(name: "builtin"))
        #expect(source.status.events.last?.kind == .refused)
        #expect(source.status.events.last?.message.contains("unsigned") == true)
    }

    @Test func olderOrEqualVersionIsRefused() throws {
        let source = try source(key: key)
        try source.install(bundle(5, taggedPolicy("v5"), key: key))
        expectRefusal(.notNewer) { try source.install(bundle(5, taggedPolicy("v5-again"), key: key)) }
        expectRefusal(.notNewer) { try source.install(bundle(4, taggedPolicy("v4"), key: key)) }
        #expect(source.status.serving.version == 5)
        try source.install(bundle(6, taggedPolicy("v6"), key: key))
        #expect(source.status.serving.version == 6)
    }

    @Test func bundleOfAnotherPackIsRefused() throws {
        let source = try source(key: key)
        expectRefusal(.wrongPack) { try source.install(bundle(1, taggedPolicy("x"), pack: "other", key: key)) }
    }

    @Test func bundleWhosePolicyFailsToLoadIsRefusedAndTheOldOneKeepsServing() async throws {
        let source = try source(key: key)
        let engine = try engine(source)
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        let broken = [
            "return {",  // does not compile
            "return { name = \"x\" }",  // no decide
            "error('at load')",  // raises while loading
            "return { name = \"x\", decide = function() end, colour = 1 }",  // unknown field
            "return { name = \"x\", decide = function() end, params = { n = 1 } }",  // params.json says {}
        ]
        for (offset, text) in broken.enumerated() {
            let refusal = expectRefusal(.policyInvalid) { try source.install(bundle(Int64(2 + offset), text, key: key)) }
            #expect(refusal?.description.contains("demo@\(2 + offset)/policy.lua") == true || offset == 4, "\(String(describing: refusal))")
        }
        #expect(source.status.serving.version == 1)
        let outcome = await engine.handle(.appForeground)
        #expect(tags(in: outcome.trace) == ["v1"])
        #expect(outcome.errors.isEmpty)
    }

    @Test func hostParamsMustFitTheNewPolicy() throws {
        let source = PolicySource(
            builtIn: try builtInPolicy(),
            configuration: PolicySource.Configuration(
                pack: "demo", trust: .keys([key.publicKey]), hostParams: ["renag_after_days": .integer(5)]))
        expectRefusal(.policyInvalid) { try source.install(bundle(1, taggedPolicy("v1"), key: key)) }
        let withParam = "return { name = \"p\", params = { renag_after_days = 3 }, decide = function() end }"
        try source.install(bundle(2, withParam, key: key, params: "{\"renag_after_days\":3}"))
        #expect(source.status.serving.version == 2)
    }

    @Test func circuitBreakerRevertsAndStaysReverted() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let breaker = CircuitBreakerConfiguration(window: 4, minimumDecisions: 4, maximumErrorShare: 0.5)
        let reported = Locked<[DeliveryEvent]>([])
        let source = PolicySource(
            builtIn: try builtInPolicy(),
            configuration: PolicySource.Configuration(
                pack: "demo", trust: .keys([key.publicKey]), directory: directory, breaker: breaker,
                clock: ManualClock(start), onEvent: { event in reported.withLock { $0.append(event) } }))
        let engine = try engine(source)
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        try source.install(bundle(2, failingPolicy, key: key))
        // Three errors out of three: not enough decisions yet to judge.
        for _ in 0..<3 {
            let outcome = await engine.handle(.appForeground)
            #expect(outcome.errors.count == 1)
        }
        #expect(source.status.serving.version == 2)
        #expect(source.status.recentErrors == 3)
        // The fourth error trips it: back to the last good bundle, with the reason.
        _ = await engine.handle(.appForeground)
        #expect(source.status.serving.version == 1)
        #expect(source.status.revokedVersions == [2])
        let reverted = try #require(source.status.events.last)
        #expect(reverted.kind == .reverted)
        #expect(reverted.version == 2)
        #expect(reverted.message.contains("errors on 4 of its last 4 decisions"))
        #expect(reported.current.contains { $0.kind == .reverted })
        // It stays reverted: later events run v1 without errors, and v2 never comes back.
        for _ in 0..<10 {
            let outcome = await engine.handle(.appForeground)
            #expect(outcome.errors.isEmpty)
            #expect(tags(in: outcome.trace) == ["v1"])
        }
        expectRefusal(.revoked) { try source.install(bundle(2, failingPolicy, key: key)) }
        #expect(source.status.serving.version == 1)
        // Not even after a restart (the revert is written off the event path; wait for it as an
        // app going to the background would).
        source.waitUntilSaved()
        let restarted = try PermitDeliveryTests.source(key: key, directory: directory)
        #expect(restarted.status.serving.version == 1)
        expectRefusal(.revoked) { try restarted.install(bundle(2, failingPolicy, key: key)) }
        // A fixed, newer version installs.
        try restarted.install(bundle(3, taggedPolicy("v3"), key: key))
        #expect(restarted.status.serving.version == 3)
    }

    /// An error the engine finds after the policy returned (here: a text with no translation
    /// for the locale or `en`) counts for the breaker like one the policy raised.
    @Test func breakerCountsErrorsTheEngineFinds() async throws {
        let untranslated = """
            return { name = "untranslated", decide = function(ctx)
              return { action = "soft_prompt", title = { fr = "Bonjour" }, message = "m", accept = "a", decline = "d" }
            end }
            """
        let breaker = CircuitBreakerConfiguration(window: 4, minimumDecisions: 4, maximumErrorShare: 0.5)
        let source = try source(key: key, breaker: breaker)
        let clock = ManualClock(start)
        let platform = Platform(version: try OSVersion(parsing: "17.0"))
        let engine = PermissionEngine(
            policy: source, client: try SimulatedDevice(platform: platform, clock: clock), platform: platform,
            clock: clock, configuration: EngineConfiguration(locale: "en", foregroundRechecks: []))
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        try source.install(bundle(2, untranslated, key: key))
        for _ in 0..<4 {
            let outcome = await engine.handle(.featureOpened("x"))
            #expect(outcome.error?.kind == .missingTranslation)
        }
        #expect(source.status.serving.version == 1)
        #expect(source.status.revokedVersions == [2])
    }

    @Test func breakerFallsToTheBuiltInFloor() async throws {
        let breaker = CircuitBreakerConfiguration(window: 2, minimumDecisions: 2, maximumErrorShare: 0.5)
        let source = try source(key: key, breaker: breaker)
        let engine = try engine(source)
        try source.install(bundle(1, failingPolicy, key: key))
        _ = await engine.handle(.appForeground)
        _ = await engine.handle(.appForeground)
        #expect(source.status.serving == .builtIn(name: "builtin"))
        #expect(source.status.fallback == nil)
        let outcome = await engine.handle(.appForeground)
        #expect(tags(in: outcome.trace) == ["builtin"])
    }

    @Test func aSwapLandingMidEventWaitsForTheNextEvent() async throws {
        // The built-in policy installs v1 from inside its own `decide`: the swap lands between
        // decide and plan_reminders of the same event.
        let box = Locked<PolicySource?>(nil)
        let plannedBy = Locked<[String]>([])
        let v1 = try bundle(1, taggedPolicy("v1"), key: key)
        let builtIn = ClosurePolicy(
            name: "builtin",
            decide: { _ in
                _ = try? box.current?.install(v1)
                return nil
            },
            planReminders: { _ in
                plannedBy.withLock { $0.append("builtin") }
                return []
            })
        let source = try source(key: key, builtIn: builtIn)
        box.withLock { $0 = source }
        let engine = try engine(source)
        let first = await engine.handle(.appForeground)
        #expect(source.status.serving.version == 1)
        #expect(plannedBy.current == ["builtin"])
        #expect(first.trace.isEmpty, "v1 ran part of the event that started on the built-in policy: \(first.trace)")
        let second = await engine.handle(.appForeground)
        #expect(tags(in: second.trace) == ["v1"])
        #expect(second.trace.contains("decide v1") && second.trace.contains("plan v1"))
    }

    @Test func swapsUnderConcurrentEventsNeverMixPolicies() async throws {
        let source = try source(key: key)
        let engine = try engine(source)
        let bundles = try (1...12).map { try bundle(Int64($0), taggedPolicy("v\($0)"), key: key) }
        let outcomes = try await withTimeout {
            await withTaskGroup(of: [Outcome].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var mine: [Outcome] = []
                        for index in 0..<25 {
                            mine.append(await engine.handle(index.isMultiple(of: 2) ? .appForeground : .appLaunch))
                        }
                        return mine
                    }
                }
                group.addTask {
                    for data in bundles {
                        _ = try? source.install(data)
                        await Task.yield()
                    }
                    return []
                }
                var all: [Outcome] = []
                for await part in group { all += part }
                return all
            }
        }
        #expect(outcomes.count == 200)
        var seen = Set<String>()
        for outcome in outcomes {
            let used = tags(in: outcome.trace)
            #expect(used.count == 1, "one event ran on several policies: \(outcome.trace)")
            // decide and plan_reminders both ran, on that one policy.
            #expect(outcome.trace.contains("decide ") && outcome.trace.contains("plan "))
            if let reason = outcome.decision.reason { #expect(used == [reason]) }
            seen.formUnion(used)
        }
        #expect(source.status.serving.version == 12)
        #expect(source.status.events.filter { $0.kind == .installed }.count == 12)
        #expect(seen.count >= 1)
    }

    @Test func lastGoodSurvivesARestart() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try source(key: key, directory: directory)
        try first.install(bundle(1, taggedPolicy("v1"), key: key))
        try first.install(bundle(2, taggedPolicy("v2"), key: key))

        let second = try source(key: key, directory: directory)
        #expect(second.status.serving == .bundle(pack: "demo", version: 2, signer: key.keyID))
        #expect(second.status.events.first?.kind == .restored)
        let outcome = try await engine(second).handle(.appLaunch)
        #expect(tags(in: outcome.trace) == ["v2"])
        // The high-water mark survives too: no rollback to v1 after a restart.
        expectRefusal(.notNewer) { try second.install(bundle(1, taggedPolicy("v1"), key: key)) }
    }

    @Test func savedBundleIsVerifiedAgainAtLaunch() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock(start)
        let first = try source(key: key, directory: directory, clock: clock)
        try first.install(bundle(1, taggedPolicy("v1"), key: key, expires: start.addingTimeInterval(3600)))
        // After a key rotation that drops the old key, the saved bundle is no longer trusted.
        let rotated = try source(key: BundleSigningKey(), directory: directory, clock: clock)
        #expect(rotated.status.serving == .builtIn(name: "builtin"))
        #expect(rotated.status.events.first?.kind == .launchFallback)
        #expect(rotated.status.events.first?.message.contains("unknown key id") == true)
        // Expired by the next launch: the built-in policy serves.
        clock.advance(by: 7200)
        let later = try source(key: key, directory: directory, clock: clock)
        #expect(later.status.serving == .builtIn(name: "builtin"))
        #expect(later.status.events.first?.message.contains("expired") == true)
        // A damaged state file is set aside and reported, never a crash.
        try Data("{ not json".utf8).write(to: directory.appendingPathComponent("policy-source.json"))
        let damaged = try source(key: key, directory: directory, clock: clock)
        #expect(damaged.status.serving == .builtIn(name: "builtin"))
        #expect(damaged.status.events.first?.kind == .storage)
    }
}

import Foundation
import PermitCore
import PermitLua
import PermitSimulator
import Testing

@testable import PermitDelivery

/// A vault in memory: what the Keychain keeps on an Apple device.
final class MemoryVault: AntiRollbackVault, @unchecked Sendable {
    private let stored = Locked<Data?>(nil)
    func read() throws -> Data? { stored.current }
    func write(_ data: Data) throws { stored.withLock { $0 = data } }
}

/// A vault whose writes can be held, to see what waits for a write.
final class HeldVault: AntiRollbackVault, @unchecked Sendable {
    let holding = Locked(false)
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    /// Set when a held write was not released in time (kept: a later write does not clear it).
    let timedOut = Locked(false)
    let onWrite = Locked<(@Sendable () -> Void)?>(nil)
    func read() throws -> Data? { nil }
    func write(_ data: Data) throws {
        onWrite.current?()
        guard holding.current else { return }
        entered.signal()
        if release.wait(timeout: .now() + 30) == .timedOut { timedOut.withLock { $0 = true } }
    }
}

/// The store, the breaker and install as an app lives with them: launches, damaged files,
/// newer app versions, clocks that are wrong.
@Suite struct DeliveryHardeningTests {
    let key = BundleSigningKey()

    /// One launch of the app: a source on `directory`.
    func launch(
        _ directory: URL, vault: (any AntiRollbackVault)? = nil, minimumVersion: Int64? = nil,
        breaker: CircuitBreakerConfiguration = CircuitBreakerConfiguration(), limits: LuaLimits = .default,
        clock: ManualClock = ManualClock(start)
    ) throws -> PolicySource {
        PolicySource(
            builtIn: try builtInPolicy(),
            configuration: PolicySource.Configuration(
                pack: "demo", trust: .keys([key.publicKey]), directory: directory, limits: limits, breaker: breaker,
                clock: clock, minimumVersion: minimumVersion, antiRollbackVault: vault))
    }

    /// v1 installed, v2 installed and reverted by the breaker: the mark is 2, version 2 is revoked.
    func revokeVersionTwo(_ directory: URL, vault: (any AntiRollbackVault)? = nil) async throws {
        let source = try launch(directory, vault: vault, breaker: CircuitBreakerConfiguration(window: 4, minimumDecisions: 4))
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        try source.install(bundle(2, failingPolicy, key: key))
        let engine = try engine(source)
        for _ in 0..<4 { _ = await engine.handle(.appForeground) }
        source.waitUntilSaved()
        #expect(source.status.revokedVersions == [2])
        #expect(source.status.serving.version == 1)
    }

    var stateFile: String { DeliveryStore.fileName }

    @Test func aTornStoreDoesNotReopenOlderOrRevokedVersions() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await revokeVersionTwo(directory)
        // A write torn by a crash or a full disk: half the file.
        let url = directory.appendingPathComponent(stateFile)
        let whole = try Data(contentsOf: url)
        try whole.prefix(whole.count / 2).write(to: url)

        let next = try launch(directory)
        #expect(next.status.serving == .builtIn(name: "builtin"))
        #expect(next.status.events.contains { $0.kind == .storage && $0.message.contains("damaged") })
        #expect(next.status.highestVersion == 2)
        #expect(next.status.revokedVersions == [2])
        expectRefusal(.revoked) { try next.install(bundle(2, failingPolicy, key: key)) }
        expectRefusal(.notNewer) { try next.install(bundle(1, taggedPolicy("v1"), key: key)) }
        try next.install(bundle(3, taggedPolicy("v3"), key: key))
        #expect(next.status.serving.version == 3)
    }

    @Test func aStoreFromANewerAppVersionIsKeptAndItsMarkHolds() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await revokeVersionTwo(directory)
        // A newer app wrote a form this one does not know; it had reached version 9 and revoked 8
        // (and did not update the small record: the worst case).
        let newer = Data(#"{"schema":2,"saved":{"highestVersion":9,"revoked":[2,8],"bundles":["..."]}}"#.utf8)
        try newer.write(to: directory.appendingPathComponent(stateFile))

        let older = try launch(directory)
        #expect(older.status.serving == .builtIn(name: "builtin"))
        #expect(older.status.events.contains { $0.kind == .storage && $0.message.contains("newer app version (schema 2") })
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("\(stateFile).schema-2-") }
        #expect(aside.count == 1)
        expectRefusal(.revoked) { try older.install(bundle(8, taggedPolicy("v8"), key: key)) }
        expectRefusal(.revoked) { try older.install(bundle(2, failingPolicy, key: key)) }
        expectRefusal(.notNewer) { try older.install(bundle(9, taggedPolicy("v9"), key: key)) }
        try older.install(bundle(10, taggedPolicy("v10"), key: key))
        // The newer app's file is still there, byte for byte, after this app saved its own.
        let kept = try Data(contentsOf: directory.appendingPathComponent(try #require(aside.first)))
        #expect(kept == newer)
        // And the next launch still knows version 8 is revoked.
        let again = try launch(directory)
        #expect(again.status.serving.version == 10)
        expectRefusal(.revoked) { try again.install(bundle(8, taggedPolicy("v8"), key: key)) }
    }

    @Test func theVaultKeepsTheMarkWhenTheDirectoryIsLost() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = MemoryVault()
        try await revokeVersionTwo(directory, vault: vault)
        try FileManager.default.removeItem(at: directory)
        let next = try launch(directory, vault: vault)
        expectRefusal(.revoked) { try next.install(bundle(2, failingPolicy, key: key)) }
        expectRefusal(.notNewer) { try next.install(bundle(1, taggedPolicy("v1"), key: key)) }
    }

    @Test func aStateFileRewrittenToNameAnOlderBundleIsNotServed() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try launch(directory)
        try first.install(bundle(1, taggedPolicy("v1"), key: key))
        try first.install(bundle(2, taggedPolicy("v2"), key: key))
        // The state file alone rewritten: version 1 (still signed) as the bundle serving, the
        // file's own mark lowered to match. The guard record still says 2.
        let url = directory.appendingPathComponent(stateFile)
        var top = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var saved = try #require(top["saved"] as? [String: Any])
        saved["installed"] = saved["fallback"]
        saved["fallback"] = nil
        saved["highestVersion"] = 1
        top["saved"] = saved
        try JSONSerialization.data(withJSONObject: top).write(to: url)

        let next = try launch(directory)
        #expect(next.status.serving == .builtIn(name: "builtin"))
        #expect(
            next.status.events.contains {
                $0.kind == .launchFallback && $0.message.contains("saved version 1 is below version 2, the highest installed")
            })
        expectRefusal(.notNewer) { try next.install(bundle(2, taggedPolicy("v2"), key: key)) }
    }

    @Test func aBundleTheBreakerFellBackToIsStillRestoredBelowTheMark() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await revokeVersionTwo(directory)
        let next = try launch(directory)
        #expect(next.status.serving.version == 1)
    }

    @Test func aRecordKeptApartIsMergedNeverLowered() {
        let a = AntiRollbackRecord(highestVersion: 7, revoked: [3, 5])
        let b = AntiRollbackRecord(highestVersion: 4, revoked: [5, 6])
        #expect(a.merged(with: b) == AntiRollbackRecord(highestVersion: 7, revoked: [3, 5, 6]))
        #expect(b.merged(with: a) == a.merged(with: b))
        #expect(AntiRollbackRecord.decode(a.encoded()) == a)
        // A newer app's additions are ignored; a torn record is nothing, not zero.
        #expect(
            AntiRollbackRecord.decode(Data(#"{"highest_version":12,"revoked":[11],"signed_by":"x"}"#.utf8))
                == AntiRollbackRecord(highestVersion: 12, revoked: [11]))
        #expect(AntiRollbackRecord.decode(Data(#"{"highest_vers"#.utf8)) == nil)
    }

    /// A bundle that errors on every event, 8 events a launch: fewer than the breaker's 10
    /// decisions within any one launch, so only evidence kept across launches reverts it.
    @Test func theBreakersEvidenceAddsUpAcrossLaunches() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try launch(directory)
        try first.install(bundle(1, taggedPolicy("v1"), key: key))
        try first.install(bundle(2, failingPolicy, key: key))
        var revertedAt: Int?
        for launchNumber in 1...10 {
            let source = try launch(directory)
            let engine = try engine(source)
            for _ in 0..<8 { _ = await engine.handle(.appForeground) }
            source.waitUntilSaved()
            if revertedAt == nil, source.status.events.contains(where: { $0.kind == .reverted }) { revertedAt = launchNumber }
        }
        #expect(revertedAt == 2)
        let last = try launch(directory)
        #expect(last.status.serving.version == 1, "back to the last good bundle, not the built-in policy")
        #expect(last.status.revokedVersions == [2])
        let outcome = try await engine(last).handle(.appForeground)
        #expect(outcome.errors.isEmpty)
        #expect(tags(in: outcome.trace) == ["v1"])
    }

    /// A healthy bundle writes nothing per event: the evidence is kept only while it holds errors.
    @Test func aHealthyBundleLeavesTheStoreAlone() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try launch(directory)
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        let url = directory.appendingPathComponent(stateFile)
        let before = try Data(contentsOf: url)
        let engine = try engine(source)
        for _ in 0..<5 { _ = await engine.handle(.appForeground) }
        source.waitUntilSaved()
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aBundleFromTheFutureIsRefused() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try launch(directory)
        let fiveMonths: TimeInterval = 150 * 86_400
        let refused = expectRefusal(.createdInFuture) {
            try source.install(bundle(1, taggedPolicy("v1"), key: key, created: start.addingTimeInterval(fiveMonths)))
        }
        #expect(refused?.message.contains("more than 24 hours after this device's clock") == true)
        #expect(source.status.serving == .builtIn(name: "builtin"))
        // Within the tolerance for a device clock that is a day off, it installs.
        try source.install(bundle(2, taggedPolicy("v2"), key: key, created: start.addingTimeInterval(23 * 3600)))
        #expect(source.status.serving.version == 2)
    }

    @Test func theAppsMinimumVersionIsEnforcedAtInstallAndAtLaunch() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = try launch(directory)
        try old.install(bundle(4, taggedPolicy("v4"), key: key))
        // The next app build pins version 5: the saved version 4 is not restored, nor installed.
        let pinned = try launch(directory, minimumVersion: 5)
        #expect(pinned.status.serving == .builtIn(name: "builtin"))
        #expect(pinned.status.events.contains { $0.kind == .launchFallback && $0.message.contains("below version 5") })
        let fresh = try launch(temporaryDirectory(), minimumVersion: 5)
        expectRefusal(.belowMinimumVersion) { try fresh.install(bundle(4, taggedPolicy("v4"), key: key)) }
        try fresh.install(bundle(5, taggedPolicy("v5"), key: key))
        #expect(fresh.status.serving.version == 5)
    }

    /// Installing compiles and runs the bundle's main chunk under the sandbox's limits, on the
    /// installer's thread: a main chunk that never ends is stopped by the limit and refused,
    /// and the engine's events go on, on the policy serving, all the while.
    @Test func installIsBoundedAndNeverHoldsUpEvents() async throws {
        var limits = LuaLimits.default
        limits.timeLimitMilliseconds = 3_000
        limits.instructionsPerCall = Int.max / 4
        let source = try launch(temporaryDirectory(), limits: limits)
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        let engine = try engine(source)
        let spinning = try bundle(2, "local n = 0\nwhile true do n = n + 1 end\n" + taggedPolicy("v2"), key: key)
        let installing = Task { () -> BundleError? in
            do {
                try await source.installInBackground(spinning)
                return nil
            } catch let error as BundleError {
                return error
            } catch {
                return nil
            }
        }
        // Events while the install compiles: each one runs on v1, none waits for the install.
        var during = 0
        let deadline = Date().addingTimeInterval(60)
        while source.status.events.filter({ $0.kind == .refused }).isEmpty, Date() < deadline {
            let outcome = await engine.handle(.appForeground)
            #expect(tags(in: outcome.trace) == ["v1"])
            during += 1
        }
        let result = await installing.value
        let refusal = try #require(result)
        #expect(refusal.kind == .policyInvalid)
        #expect(refusal.description.contains("time limit") || refusal.description.contains("budget"), "\(refusal)")
        #expect(during >= 2, "only \(during) events ran while the install compiled")
        #expect(source.status.serving.version == 1)
    }

    /// The store's write (the disk, the Keychain) happens after the swap and outside the lock
    /// events take: while it is held up, events go on, on the new policy. The events are the
    /// engine's calls into the source, made on a thread of their own (so a busy task pool
    /// cannot delay them).
    @Test func eventsGoOnWhileAnInstallIsBeingSaved() async throws {
        let vault = HeldVault()
        let source = try launch(temporaryDirectory(), vault: vault)
        try source.install(bundle(1, taggedPolicy("v1"), key: key))
        vault.holding.withLock { $0 = true }
        let installing = Task { try await source.installInBackground(bundle(2, taggedPolicy("v2"), key: key)) }
        let version = try OSVersion(parsing: "17.0")
        let context = PolicyContext(
            event: .appForeground, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            params: [:], now: 1_767_600_000, locale: "en", userBucket: 1)
        let served: [Int64?] = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                vault.entered.wait()
                var versions: [Int64?] = []
                for _ in 0..<5 {
                    _ = try? source.decide(context)
                    versions.append(source.version)
                }
                vault.release.signal()
                continuation.resume(returning: versions)
            }
        }
        _ = try await installing.value
        #expect(!vault.timedOut.current, "the events waited for the install's write")
        #expect(served == Array(repeating: 2, count: 5))
    }

    /// `PolicySource.open` restores the saved bundle as `init` does, on the installer's queue.
    @Test func openRestoresOffTheCallersThread() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try launch(directory).install(bundle(3, taggedPolicy("v3"), key: key))
        let opened = await PolicySource.open(
            builtIn: try builtInPolicy(),
            configuration: PolicySource.Configuration(
                pack: "demo", trust: .keys([key.publicKey]), directory: directory, clock: ManualClock(start)))
        #expect(opened.status.serving == .bundle(pack: "demo", version: 3, signer: key.keyID))
        #expect(opened.status.events.first?.kind == .restored)
    }

    /// `installInBackground` from the main actor: the work (here, the store's write) runs on the
    /// installer's queue, not on the caller's thread.
    @MainActor @Test func installInBackgroundLeavesTheCallersThread() async throws {
        let key = DispatchSpecificKey<Bool>()
        PolicySource.installer.setSpecific(key: key, value: true)
        defer { PolicySource.installer.setSpecific(key: key, value: nil) }
        let onInstaller = Locked<[Bool]>([])
        let vault = HeldVault()
        vault.onWrite.withLock { $0 = { onInstaller.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true) } } }
        let source = try launch(temporaryDirectory(), vault: vault)
        try await source.installInBackground(bundle(1, taggedPolicy("v1"), key: self.key))
        #expect(source.status.serving.version == 1)
        #expect(onInstaller.current == [true])
    }
}

import Foundation
import PermitCore
import PermitLua

/// Where the policy being served came from.
public enum PolicyOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The policy built into the app: the floor, always there to fall back to.
    case builtIn(name: String)
    /// A verified bundle: pack, version and signer (`nil` when unsigned for development).
    case bundle(pack: String, version: Int64, signer: KeyID?)

    /// The bundle version; `nil` for the built-in policy.
    public var version: Int64? {
        if case .bundle(_, let version, _) = self { return version }
        return nil
    }

    /// `built-in` or the pack and version.
    public var description: String {
        switch self {
        case .builtIn(let name): "built-in policy \(name)"
        case .bundle(let pack, let version, let signer):
            "bundle \(pack) version \(version)" + (signer.map { " (signed by \($0))" } ?? " (unsigned)")
        }
    }
}

/// Something the policy source did, for the host's logs and for tests.
public struct DeliveryEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened: an install, a refusal, a rollback, ...
    public enum Kind: String, Sendable, Hashable {
        /// A bundle was installed and serves from the next event on.
        case installed
        /// A bundle was refused; the policy serving before keeps serving.
        case refused
        /// The circuit breaker removed the policy being served and went back to the last good one.
        case reverted
        /// The bundle persisted by an earlier launch was verified and loaded.
        case restored
        /// The persisted bundle could not be used at launch; the built-in policy serves.
        case launchFallback = "launch_fallback"
        /// The built-in policy keeps erroring; there is nothing below it to fall back to.
        case breakerAtFloor = "breaker_at_floor"
        /// The last good bundle could not be saved (or the saved state could not be read).
        case storage
        /// The previous process ended while this bundle was loading, installing or deciding;
        /// it is revoked and the last good policy serves (`DeliveryStatus.setAside` keeps why).
        case setAside = "set_aside"
    }

    /// When it happened, by the source's clock.
    public var time: Date
    /// What happened.
    public var kind: Kind
    /// The bundle version concerned, when there is one.
    public var version: Int64?
    /// A sentence for the log.
    public var message: String

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}

/// What the source serves now and why, for inspection.
public struct DeliveryStatus: Sendable {
    /// The policy serving now.
    public var serving: PolicyOrigin
    /// What the circuit breaker falls back to if `serving` breaks.
    public var fallback: PolicyOrigin?
    /// The greatest bundle version ever installed: only a greater one installs.
    public var highestVersion: Int64?
    /// Versions the circuit breaker removed; never installed again.
    public var revokedVersions: [Int64]
    /// Decisions and errors of `serving` in the breaker's window.
    public var recentDecisions: Int
    /// How many of those decisions were errors.
    public var recentErrors: Int
    /// Everything that happened, oldest first (the last 200).
    public var events: [DeliveryEvent]
    /// Bundles set aside because a process ended while running them (the launch guard), oldest
    /// first, as saved across launches (the last 20).
    public var setAside: [SetAsideBundle] = []
}

/// The policy an engine runs when policies are delivered at run time.
///
/// Give it to `PermissionEngine` as the policy; feed it bundles with `install`. It serves the
/// built-in policy (the floor) until a bundle is installed, then the newest installed bundle.
///
/// - A bundle installs only when it verifies against the trusted keys (with keys configured an
///   unsigned or stripped bundle is refused), was not created more than a day after the device's
///   clock, is for the configured pack, is not below `minimumVersion`, is newer than every
///   version installed before (and was never revoked), and loads and passes `check` in the
///   sandbox with the host's params. Otherwise `install` throws why, and the policy serving
///   keeps serving. Checking, compiling and probing run on the installing thread
///   (`installInBackground`: a background queue), never under the lock events take.
/// - Swaps are atomic between events: `decide` pins the policy it used, and the
///   `plan_reminders` and trace of that same event go to the pinned policy, so an event never
///   runs half on the old policy and half on the new one. One source serves one engine.
/// - The circuit breaker counts errors over recent decisions; when it trips, the source goes
///   back to the policy that served before (the previous bundle, or the built-in one), records
///   why, revokes the broken version for good, and persists the change. Its window is saved
///   while it holds errors, so errors add up across launches.
/// - With a `directory`, the bundle serving and its fallback are persisted (atomically, with
///   the version high-water mark, the revoked versions and the breaker's evidence) and verified
///   again and loaded at the next launch; the mark and the revoked versions are also kept
///   apart (see `DeliveryStore`, and `antiRollbackVault`), so a damaged or newer store does not
///   reopen old versions.
public final class PolicySource: Policy {
    /// How a source verifies, keeps and judges bundles.
    public struct Configuration: Sendable {
        /// The pack this app runs; bundles of other packs are refused. `nil` accepts any pack
        /// (scenarios, tests); an app should always name its pack.
        public var pack: String?
        /// Which signatures are accepted.
        public var trust: BundleTrust
        /// Where the last good bundle is kept (`policy-source.json` inside); `nil` keeps nothing.
        public var directory: URL?
        /// The sandbox limits a delivered policy runs under.
        public var limits: LuaLimits
        /// The params the host overrides (the engine's `configuration.params`): a bundle whose
        /// policy does not declare them, or with other types, is refused.
        public var hostParams: [String: PolicyValue]
        /// When a new policy is judged broken and rolled back.
        public var breaker: CircuitBreakerConfiguration
        /// For expiry checks and event times.
        public var clock: any PermitClock
        /// This engine's version, checked against a bundle's minimum.
        public var engineVersion: EngineVersion
        /// Called for every event, outside any lock, on the thread that caused it.
        public var onEvent: (@Sendable (DeliveryEvent) -> Void)?
        /// The lowest bundle version this app build accepts: bundles below it are refused, and
        /// a saved one below it is not restored. Pin it when a release must never again run a
        /// policy published before it (one that relied on something this build removed, say).
        public var minimumVersion: Int64?
        /// A second copy of the version mark and revoked versions, apart from `directory`
        /// (on Apple platforms `KeychainAntiRollbackVault`); `nil` keeps them in `directory` only.
        public var antiRollbackVault: (any AntiRollbackVault)?

        /// A configuration; an app names its `pack` and its trusted keys, the rest has defaults.
        public init(
            pack: String?, trust: BundleTrust, directory: URL? = nil, limits: LuaLimits = .default,
            hostParams: [String: PolicyValue] = [:], breaker: CircuitBreakerConfiguration = CircuitBreakerConfiguration(),
            clock: any PermitClock = SystemClock(), engineVersion: EngineVersion = .current,
            onEvent: (@Sendable (DeliveryEvent) -> Void)? = nil, minimumVersion: Int64? = nil,
            antiRollbackVault: (any AntiRollbackVault)? = nil
        ) {
            self.minimumVersion = minimumVersion
            self.antiRollbackVault = antiRollbackVault
            self.pack = pack
            self.trust = trust
            self.directory = directory
            self.limits = limits
            self.hostParams = hostParams
            self.breaker = breaker
            self.clock = clock
            self.engineVersion = engineVersion
            self.onEvent = onEvent
        }
    }

    /// One policy that can serve, and where it came from.
    struct Serving: Sendable {
        let policy: any Policy
        let origin: PolicyOrigin
        let bundle: PolicyBundle?
        /// Distinguishes installs, so a decision is never counted against a policy that did not make it.
        let generation: Int
    }

    struct State: Sendable {
        var current: Serving
        var previous: Serving?
        /// The policy the event in progress runs on (set by `decide`).
        var pinned: Serving?
        var window = BreakerWindow()
        var highestVersion: Int64?
        var revoked: Set<Int64> = []
        var events: [DeliveryEvent] = []
        var nextGeneration = 1
        /// A write of the state is queued and has not yet read it.
        var writeQueued = false
        /// The breaker evidence last handed to the store held errors (so a clean window must be
        /// written too, or the next launch would see errors that have since scrolled out).
        var savedEvidenceHasErrors = false
        /// Bundles the launch guard set aside, as saved.
        var setAside: [SetAsideBundle] = []
    }

    /// The policy the app shipped with: served until a bundle installs, and the last resort.
    public let builtIn: any Policy
    /// How bundles are verified, kept and judged.
    public let configuration: Configuration
    private let builtInServing: Serving
    private let state: Locked<State>
    /// Serialises installs (verifying and loading run outside the state lock).
    private let installGate = Locked(())
    /// Serialises writes of the store; taken before the state lock, never inside it.
    private let storeGate = Locked(())
    private let store: DeliveryStore?
    /// Marks the bundle loading, installing or deciding, so the next launch knows when this
    /// process ended during one (`nil` without a `directory`, or when it cannot be opened).
    private let launchGuard: LaunchGuard?
    /// Why the launch guard could not be opened, reported once the source is up.
    private let launchGuardProblem: String?
    /// Writes the breaker's evidence and reverts off the engine's event path.
    private let writer = DispatchQueue(label: "permit.policy-source.store", qos: .utility)
    /// Runs `installInBackground`: compiling and probing a bundle never happens on the caller's thread.
    static let installer = DispatchQueue(label: "permit.policy-source.install", qos: .utility)

    /// Starts serving: the persisted bundle when there is a usable one, else `builtIn`.
    public init(builtIn: any Policy, configuration: Configuration) {
        self.builtIn = builtIn
        self.configuration = configuration
        builtInServing = Serving(policy: builtIn, origin: .builtIn(name: builtIn.name), bundle: nil, generation: 0)
        store = configuration.directory.map { DeliveryStore(directory: $0, vault: configuration.antiRollbackVault) }
        var opened: LaunchGuard?
        var problem: String?
        if let directory = configuration.directory {
            do throws(LaunchGuard.StoreError) { opened = try LaunchGuard(directory: directory) } catch {
                problem = "the launch guard cannot be kept (\(error)); a policy that ends the process is not set aside"
            }
        }
        launchGuard = opened
        launchGuardProblem = problem
        state = Locked(State(current: builtInServing))
        restore()
    }

    // MARK: Installing

    /// Starts a source off the caller's thread: restoring the saved bundle verifies and
    /// compiles it, which an app's main thread should not wait for.
    public static func open(builtIn: any Policy, configuration: Configuration) async -> PolicySource {
        await withCheckedContinuation { continuation in
            installer.async { continuation.resume(returning: PolicySource(builtIn: builtIn, configuration: configuration)) }
        }
    }

    /// Verifies and installs a bundle's bytes on a background queue, so the caller (the main
    /// actor, say) never waits while the bundle is checked, compiled and probed. The swap
    /// happens between two events, as with `install(_:)`.
    @discardableResult
    public func installInBackground(_ data: Data) async throws(BundleError) -> BundleManifest {
        let result: Result<BundleManifest, BundleError> = await withCheckedContinuation { continuation in
            PolicySource.installer.async {
                do throws(BundleError) {
                    continuation.resume(returning: .success(try self.install(data)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Verifies and installs a bundle's bytes (as downloaded); throws why when it is refused.
    ///
    /// The calling thread does the work (verifying, compiling and probing the policy under the
    /// sandbox's limits, writing the store); engine events on other threads go on meanwhile on
    /// the policy serving, and the new one serves from the next event. From the main thread
    /// use `installInBackground`.
    @discardableResult
    public func install(_ data: Data) throws(BundleError) -> BundleManifest {
        do {
            return try installGate.withLock { (_: inout Void) throws(BundleError) -> BundleManifest in
                let bundle = try PolicyBundle(data: data)
                return try install(bundle)
            }
        } catch {
            report(
                DeliveryEvent(
                    time: configuration.clock.now(), kind: .refused, version: versionHint(data),
                    message: "\(error.description); still serving \(status.serving)"))
            throw error
        }
    }

    /// Reads and installs a bundle file.
    @discardableResult
    public func install(contentsOf url: URL) throws(BundleError) -> BundleManifest {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            let error = BundleError(.malformed, "cannot read \(url.path)")
            report(DeliveryEvent(time: configuration.clock.now(), kind: .refused, version: nil, message: error.description))
            throw error
        }
        return try install(data)
    }

    private func install(_ bundle: PolicyBundle) throws(BundleError) -> BundleManifest {
        let verified = try bundle.verify(
            trust: configuration.trust, now: configuration.clock.now(), engine: configuration.engineVersion)
        let manifest = verified.manifest
        if let pack = configuration.pack, manifest.pack != pack {
            throw BundleError(.wrongPack, "the bundle is for pack \(manifest.pack); this app runs \(pack)")
        }
        try checkVersion(manifest.version)
        let policy = try loadMarked(verified, as: .installing)
        // The swap: the only step under the state lock, between two events.
        let installed: (message: String, fallback: PolicyOrigin) = state.withLock { state in
            let serving = Serving(
                policy: policy, origin: .bundle(pack: manifest.pack, version: manifest.version, signer: verified.signer),
                bundle: bundle, generation: state.nextGeneration)
            state.nextGeneration += 1
            state.previous = state.current
            state.current = serving
            state.window.reset()
            state.highestVersion = max(state.highestVersion ?? 0, manifest.version)
            return ("now serving \(serving.origin) (policy \(policy.name))", state.previous!.origin)
        }
        var message = "\(installed.message); falls back to \(installed.fallback)"
        if let problem = persistNow() { message += "; \(problem)" }
        report(DeliveryEvent(time: configuration.clock.now(), kind: .installed, version: manifest.version, message: message))
        return manifest
    }

    private func checkVersion(_ version: Int64) throws(BundleError) {
        if let minimum = configuration.minimumVersion, version < minimum {
            throw BundleError(
                .belowMinimumVersion,
                "version \(version) is below version \(minimum), the lowest this app accepts (minimumVersion); publish version \(minimum) or newer"
            )
        }
        let (highest, revoked, serving) = state.withLock { ($0.highestVersion, $0.revoked, $0.current.origin) }
        if revoked.contains(version) {
            throw BundleError(
                .revoked, "version \(version) was removed by the circuit breaker and is never installed again; publish a newer version")
        }
        if let highest, version <= highest {
            throw BundleError(
                .notNewer,
                "version \(version) is not newer than version \(highest)"
                    + (serving.version == highest ? ", which is installed" : ", installed before"))
        }
    }

    /// Loads the policy in the sandbox and checks it as `permit check` does, plus its params.
    private func load(_ verified: VerifiedBundle) throws(BundleError) -> LuaPolicy {
        let policy: LuaPolicy
        do {
            policy = try LuaPolicy(source: verified.policySource, chunkName: verified.chunkName, limits: configuration.limits)
        } catch {
            throw BundleError(.policyInvalid, error.description, policyError: error)
        }
        guard ParamsComparison.same(policy.defaultParams, verified.params) else {
            throw BundleError(
                .policyInvalid, "params.json does not match the params policy.lua declares; rebuild the bundle with permit bundle")
        }
        do {
            try policy.validate(params: configuration.hostParams)
        } catch {
            throw BundleError(.policyInvalid, "the host's params do not fit this policy: \(error.description)", policyError: error)
        }
        return policy
    }

    // MARK: Status

    /// What serves now and why.
    public var status: DeliveryStatus {
        state.withLock { state in
            DeliveryStatus(
                serving: state.current.origin, fallback: state.previous?.origin, highestVersion: state.highestVersion,
                revokedVersions: state.revoked.sorted(), recentDecisions: state.window.count,
                recentErrors: state.window.errors, events: state.events, setAside: state.setAside)
        }
    }

    /// The policy serving now (for inspection; the engine goes through the `Policy` methods).
    public var current: any Policy { state.withLock { $0.current.policy } }

    // MARK: Policy

    /// What the policy says about itself. The facts of the event in progress (whether it plans
    /// reminders, what it keeps across a reinstall, its version: the bundle's, `nil` for the
    /// built-in policy) are the pinned policy's, so one event never mixes two policies; its
    /// name, experiments and declared events are the serving policy's: an update that changes
    /// the experiments reconciles the install's arms at the next event
    /// (docs/reference/policy.md#experiments).
    public var declaration: PolicyDeclaration {
        let (pinned, serving) = state.withLock { ($0.pinned ?? $0.current, $0.current) }
        var declaration = pinned.policy.declaration
        declaration.version = pinned.origin.version
        if pinned.generation != serving.generation {
            let current = serving.policy.declaration
            declaration.name = current.name
            declaration.experiments = current.experiments
            declaration.declaredEvents = current.declaredEvents
        }
        return declaration
    }

    /// The decision alone, as `answer` gives it (pinned the same way); what the policy printed
    /// is dropped. The engine calls `answer`; this is for a host or a test that wants only the
    /// decision.
    public func decide(_ context: PolicyContext) throws(PolicyError) -> Decision? {
        try answer(context).decision.get()
    }

    /// Decides and takes the trace on the serving policy as one call, pinned like `decide`:
    /// a Lua policy answers both under one VM lock, so another event's log never lands in
    /// this event's trace.
    public func answer(_ context: PolicyContext) -> PolicyAnswer {
        let serving = state.withLock { state in
            state.pinned = state.current
            return state.current
        }
        let answer = guarded(serving) { serving.policy.answer(context) }
        if case .failure(let error) = answer.decision {
            record(serving, errored: true, fatal: error.kind == .deadline)
        } else {
            record(serving, errored: false)
        }
        return answer
    }

    /// Plans reminders on the policy the event is pinned to.
    public func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        let serving = pinnedOrCurrent
        do throws(PolicyError) {
            return try guarded(serving) { () throws(PolicyError) in try serving.policy.planReminders(context) }
        } catch {
            record(serving, errored: nil, fatal: error.kind == .deadline)
            throw error
        }
    }

    /// Runs a call of a delivered bundle with the launch guard's decision mark set, so that the
    /// next launch knows when this process ended inside it; a built-in policy is not marked.
    private func guarded<T, Failure: Error>(_ serving: Serving, _ call: () throws(Failure) -> T) throws(Failure) -> T {
        guard let launchGuard, let version = serving.origin.version else { return try call() }
        launchGuard.mark(.decide, .deciding, version: version)
        defer { launchGuard.clear(.decide) }
        return try call()
    }

    /// Checks the params on the serving policy.
    public func validate(params: [String: PolicyValue]) throws(PolicyError) {
        try current.validate(params: params)
    }

    /// The trace of the policy the event ran on.
    public func takeTrace() -> String { pinnedOrCurrent.policy.takeTrace() }

    /// Errors the engine found after the policy returned count against it too: an event with
    /// any error is an errored decision for the breaker (marking it twice changes nothing).
    /// The serving policy hears of them too, as it would without a source in between.
    public func eventHandled(errors: [PolicyError]) {
        let serving = pinnedOrCurrent
        serving.policy.eventHandled(errors: errors)
        guard !errors.isEmpty else { return }
        record(serving, errored: nil)
    }

    private var pinnedOrCurrent: Serving { state.withLock { $0.pinned ?? $0.current } }

    // MARK: Circuit breaker

    /// Counts one decision (`errored: nil` marks the last decision of `serving` as failed in
    /// `plan_reminders`) and trips the breaker when the share of errors is too high, or at once
    /// when the error is `fatal`: a call that overran the deadline left the policy without a
    /// VM, so every later call would fail too.
    private func record(_ serving: Serving, errored: Bool?, fatal: Bool = false) {
        let (event, write): (DeliveryEvent?, Bool) = state.withLock { state in
            guard state.current.generation == serving.generation else { return (nil, false) }
            if let errored {
                state.window.record(errored: errored, window: configuration.breaker.window)
            } else {
                state.window.markLastErrored()
            }
            // The evidence outlives the launch only when it matters: while the window holds
            // errors (and once more when it is clean again). A healthy policy never writes.
            let evidenceChanged =
                store != nil && state.current.origin.version != nil
                && (state.window.errors > 0 || state.savedEvidenceHasErrors)
            guard fatal || state.window.isTripped(configuration.breaker) else {
                return (nil, evidenceChanged && queueWrite(&state))
            }
            let share =
                fatal
                ? "held its thread past the deadline (\(configuration.limits.timeLimitMilliseconds) ms time limit + \(configuration.limits.deadlineMarginMilliseconds ?? 0) ms margin), so its VM is discarded"
                : "errors on \(state.window.errors) of its last \(state.window.count) decisions (limit \(Int(configuration.breaker.maximumErrorShare * 100))%)"
            state.window.reset()
            guard let broken = state.current.origin.version else {
                return (
                    append(
                        DeliveryEvent(
                            time: configuration.clock.now(), kind: .breakerAtFloor, version: nil,
                            message: "\(state.current.origin) \(share); there is nothing to fall back to"), to: &state), false
                )
            }
            let fallback = state.previous ?? builtInServing
            state.revoked.insert(broken)
            state.current = fallback
            state.previous = fallback.bundle == nil ? nil : builtInServing
            let message = "\(serving.origin) \(share); back to \(fallback.origin); version \(broken) is revoked and never installed again"
            return (
                append(DeliveryEvent(time: configuration.clock.now(), kind: .reverted, version: broken, message: message), to: &state),
                store != nil && queueWrite(&state)
            )
        }
        if let event { configuration.onEvent?(event) }
        if write { writeInBackground() }
    }

    // MARK: Persistence

    /// Marks a write as queued; `true` when the caller must queue one (none is waiting).
    private func queueWrite(_ state: inout State) -> Bool {
        guard !state.writeQueued else { return false }
        state.writeQueued = true
        return true
    }

    /// Writes the state on the store's queue, off the engine's event path; a failure is reported.
    private func writeInBackground() {
        writer.async { [self] in
            if let problem = persistNow() {
                report(DeliveryEvent(time: configuration.clock.now(), kind: .storage, version: nil, message: problem))
            }
        }
    }

    /// Waits until every write queued so far (the breaker's evidence, a revert) is on the disk.
    /// An app may call it when it goes to the background; tests call it between "launches".
    public func waitUntilSaved() {
        writer.sync {}
    }

    /// Writes the state as it is now (read under the store's gate, so writes never go back in
    /// time); returns a problem to report, or nil. Never called with the state lock held.
    private func persistNow() -> String? {
        guard let store else { return nil }
        return storeGate.withLock { _ -> String? in
            let saved: DeliveryStore.Saved = state.withLock { state in
                state.writeQueued = false
                let evidence = state.current.origin.version.map {
                    DeliveryStore.BreakerEvidence(version: $0, results: state.window.results)
                }
                state.savedEvidenceHasErrors = state.window.errors > 0
                return DeliveryStore.Saved(
                    highestVersion: state.highestVersion, revoked: state.revoked.sorted(),
                    installed: state.current.bundle?.encoded(), fallback: state.previous?.bundle?.encoded(),
                    breaker: evidence, setAside: state.setAside.isEmpty ? nil : state.setAside)
            }
            do {
                try store.save(saved)
                return nil
            } catch {
                return "could not persist it (\(error)); it serves until the app quits"
            }
        }
    }

    /// Loads the last good bundle of an earlier launch, and the one it falls back to, verifying
    /// each again as if it had just arrived. The version mark and revoked versions apply
    /// whatever became of the state file (see `DeliveryStore`).
    private func restore() {
        guard let store else { return }
        var events: [DeliveryEvent] = []
        let now = configuration.clock.now()
        var loaded = store.load()
        for warning in loaded.warnings + loaded.unreadable {
            events.append(DeliveryEvent(time: now, kind: .storage, version: nil, message: warning))
        }
        if let launchGuardProblem { events.append(DeliveryEvent(time: now, kind: .storage, version: nil, message: launchGuardProblem)) }
        if let launchGuard {
            events += setAside(launchGuard.leftOvers, loaded: &loaded, store: store, now: now)
            launchGuard.reset()
        }
        let record = loaded.antiRollback
        state.withLock { state in
            state.highestVersion = record.highestVersion
            state.revoked = Set(record.revoked)
            state.setAside = loaded.saved?.setAside ?? []
        }
        if let saved = loaded.saved, let data = saved.installed {
            do throws(BundleError) {
                let current = try restored(data, now: now, revoked: Set(record.revoked))
                try checkRestoredAgainstMark(current.origin, record)
                // The fallback is best effort: when it no longer verifies, the built-in policy is the floor.
                let fallback = saved.fallback.flatMap { try? restored($0, now: now, revoked: Set(record.revoked)) }
                    .flatMap { ($0.origin.version ?? 0) < (current.origin.version ?? 0) ? $0 : nil }
                let evidence = saved.breaker.flatMap { $0.version == current.origin.version ? $0.results : nil }
                state.withLock { state in
                    var previous = builtInServing
                    if let fallback {
                        previous = Serving(
                            policy: fallback.policy, origin: fallback.origin, bundle: fallback.bundle, generation: state.nextGeneration)
                        state.nextGeneration += 1
                    }
                    state.previous = previous
                    state.current = Serving(
                        policy: current.policy, origin: current.origin, bundle: current.bundle, generation: state.nextGeneration)
                    state.nextGeneration += 1
                    state.highestVersion = max(state.highestVersion ?? 0, current.origin.version ?? 0)
                    if let evidence {
                        state.window = BreakerWindow(results: evidence, window: configuration.breaker.window)
                        state.savedEvidenceHasErrors = state.window.errors > 0
                    }
                }
                events.append(
                    DeliveryEvent(
                        time: now, kind: .restored, version: current.origin.version,
                        message:
                            "serving \(current.origin), saved by an earlier launch; falls back to \(fallback?.origin ?? builtInServing.origin)"
                            + (evidence.map { r in
                                r.contains(true)
                                    ? "; the breaker remembers \(r.filter { $0 }.count) error(s) in its last \(r.count) decisions" : ""
                            } ?? "")))
            } catch {
                events.append(restoreFallback(saved, failure: error, now: now, revoked: Set(record.revoked), version: versionHint(data)))
            }
        }
        for event in events { report(event) }
    }

    /// The bundle serving when the state was saved is the one that set the mark, unless the
    /// breaker reverted it (then the mark's version is revoked): a saved bundle below a mark
    /// that is not revoked is a state file rewritten to name an older signed bundle, and is
    /// refused like an install of it.
    private func checkRestoredAgainstMark(_ origin: PolicyOrigin, _ record: AntiRollbackRecord) throws(BundleError) {
        guard let version = origin.version, let mark = record.highestVersion, version < mark,
            !record.revoked.contains(mark)
        else { return }
        throw BundleError(
            .notNewer,
            "the saved version \(version) is below version \(mark), the highest installed (the version mark kept apart from the state file); install version \(mark + 1) or newer"
        )
    }

    /// A saved bundle, verified and loaded again as at install (the mark is checked apart, by
    /// `checkRestoredAgainstMark`: the saved bundle set it).
    private func restored(
        _ data: Data, now: Date, revoked: Set<Int64>
    ) throws(BundleError) -> (policy: LuaPolicy, origin: PolicyOrigin, bundle: PolicyBundle) {
        let bundle = try PolicyBundle(data: data)
        let verified = try bundle.verify(trust: configuration.trust, now: now, engine: configuration.engineVersion)
        let manifest = verified.manifest
        if let pack = configuration.pack, manifest.pack != pack {
            throw BundleError(.wrongPack, "the saved bundle is for pack \(manifest.pack); this app runs \(pack)")
        }
        if revoked.contains(manifest.version) {
            throw BundleError(.revoked, "the saved version \(manifest.version) was revoked")
        }
        if let minimum = configuration.minimumVersion, manifest.version < minimum {
            throw BundleError(
                .belowMinimumVersion,
                "the saved version \(manifest.version) is below version \(minimum), the lowest this app accepts (minimumVersion)")
        }
        let policy = try loadMarked(verified, as: .loading)
        return (policy, .bundle(pack: manifest.pack, version: manifest.version, signer: verified.signer), bundle)
    }

    // MARK: The launch guard

    /// Loads a verified bundle as `load` does, with the launch guard marking it meanwhile; a
    /// load that overran the deadline revokes the version (its thread is still held: another
    /// try would hold one more).
    private func loadMarked(_ verified: VerifiedBundle, as activity: LaunchGuard.Activity) throws(BundleError) -> LuaPolicy {
        let version = verified.manifest.version
        launchGuard?.mark(.load, activity, version: version)
        defer { launchGuard?.clear(.load) }
        do {
            return try load(verified)
        } catch  where error.policyError?.kind == .deadline {
            state.withLock { _ = $0.revoked.insert(version) }
            let saving = persistNow().map { "; \($0)" } ?? ""
            throw BundleError(
                error.kind, "\(error.message); version \(version) is revoked and never installed again\(saving)",
                policyError: error.policyError)
        }
    }

    /// Sets aside the bundles the previous process was running when it ended: each is revoked,
    /// recorded with its reason, and saved before anything else is loaded, so a bundle that
    /// kills the process at launch kills at most that one launch.
    private func setAside(
        _ leftOvers: [LaunchGuard.LeftOver], loaded: inout DeliveryStore.Loaded, store: DeliveryStore, now: Date
    ) -> [DeliveryEvent] {
        let fresh = leftOvers.filter { !loaded.antiRollback.revoked.contains($0.version) }
        guard !fresh.isEmpty else { return [] }
        var saved =
            loaded.saved
            ?? DeliveryStore.Saved(
                highestVersion: loaded.antiRollback.highestVersion, revoked: [], installed: nil, fallback: nil, breaker: nil)
        var events: [DeliveryEvent] = []
        for leftOver in fresh {
            let reason =
                "the app's process ended while bundle version \(leftOver.version) was \(leftOver.activity.words); "
                + "it is set aside for good (revoked) so that it cannot end the next launch too, and the last good policy serves"
            saved.setAside = Array(
                ((saved.setAside ?? []) + [SetAsideBundle(version: leftOver.version, reason: reason, time: now)]).suffix(20))
            loaded.antiRollback = loaded.antiRollback.merged(with: AntiRollbackRecord(highestVersion: nil, revoked: [leftOver.version]))
            events.append(DeliveryEvent(time: now, kind: .setAside, version: leftOver.version, message: reason))
        }
        saved.revoked = loaded.antiRollback.revoked
        saved.highestVersion = loaded.antiRollback.highestVersion
        loaded.saved = saved
        do throws(DeliveryStore.StoreError) { try store.save(saved) } catch {
            events.append(
                DeliveryEvent(
                    time: now, kind: .storage, version: nil,
                    message: "could not save the bundles set aside (\(error)); they stay revoked for this launch"))
        }
        return events
    }

    /// The saved bundle could not be restored: its fallback serves when it still loads, else
    /// the built-in policy.
    private func restoreFallback(
        _ saved: DeliveryStore.Saved, failure: BundleError, now: Date, revoked: Set<Int64>, version: Int64?
    ) -> DeliveryEvent {
        let fallback = saved.fallback.flatMap { try? restored($0, now: now, revoked: revoked) }
        if let fallback {
            state.withLock { state in
                state.current = Serving(
                    policy: fallback.policy, origin: fallback.origin, bundle: fallback.bundle, generation: state.nextGeneration)
                state.nextGeneration += 1
                state.previous = builtInServing
            }
        }
        let serving = fallback?.origin ?? builtInServing.origin
        return DeliveryEvent(
            time: now, kind: .launchFallback, version: version,
            message: "the saved bundle cannot be used (\(failure.description)); serving \(serving)")
    }

    // MARK: Events

    private func append(_ event: DeliveryEvent, to state: inout State) -> DeliveryEvent {
        state.events.append(event)
        if state.events.count > 200 { state.events.removeFirst(state.events.count - 200) }
        return event
    }

    private func report(_ event: DeliveryEvent) {
        let appended = state.withLock { append(event, to: &$0) }
        configuration.onEvent?(appended)
    }

    /// The version a bundle claims, for logs about refused bundles (not trusted for anything).
    private func versionHint(_ data: Data) -> Int64? {
        guard let bundle = try? PolicyBundle(data: data), let manifest = try? BundleManifest.decode(bundle.manifestBytes) else {
            return nil
        }
        return manifest.version
    }
}

/// Params equal by value, with `3` and `3.0` the same number (JSON does not keep the difference).
enum ParamsComparison {
    static func same(_ a: [String: PolicyValue], _ b: [String: PolicyValue]) -> Bool {
        a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
    }

    static func same(_ a: PolicyValue, _ b: PolicyValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .number(let y)), (.number(let y), .integer(let x)): return Double(x) == y
        case (.list(let x), .list(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.table(let x), .table(let y)): return same(x, y)
        default: return a == b
        }
    }
}

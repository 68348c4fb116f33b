import Foundation
import PermitLuaTestSupport
import PermitSimulator
import PermitTestSupport
import Testing

@testable import PermitCore
@testable import PermitLua

/// Many tasks, one engine, a real Lua policy.
@Suite struct LoadTests {
    static let repository = Repository.root

    /// Wraps a policy and notes whenever two calls overlap (the VM entered twice at once).
    ///
    /// It forwards every requirement (the protocol has no defaults), so the engine takes the
    /// path it takes with the bare Lua policy: `answer` (decide and the trace under one VM lock),
    /// `takeTrace`, `eventHandled`.
    final class OverlapDetector: Policy {
        let inner: any Policy
        let inside = Locked(0)
        let overlaps = Locked(0)
        let calls = Locked(0)
        /// Calls by the engine's per-event path.
        let answers = Locked(0)

        init(_ inner: any Policy) { self.inner = inner }
        var declaration: PolicyDeclaration { inner.declaration }

        private func entering<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
            if inside.withLock({
                $0 += 1; return $0
            }) > 1 {
                overlaps.withLock { $0 += 1 }
            }
            calls.withLock { $0 += 1 }
            defer { inside.withLock { $0 -= 1 } }
            return try body()
        }

        func answer(_ context: PolicyContext) -> PolicyAnswer {
            answers.withLock { $0 += 1 }
            return entering { inner.answer(context) }
        }

        func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
            try entering { () throws(PolicyError) in try inner.planReminders(context) }
        }

        func validate(params: [String: PolicyValue]) throws(PolicyError) { try inner.validate(params: params) }
        func takeTrace() -> String { inner.takeTrace() }
        func eventHandled(errors: [PolicyError]) { inner.eventHandled(errors: errors) }
    }

    /// 100 tasks × 1,000 events into one engine running the polite pack: every event counted
    /// exactly once, and the Lua VM never entered by two events at once.
    @Test func hundredTasksThousandEventsEach() async throws {
        // The wall-clock limits are far away: this test is about events counted once and calls
        // that never overlap, not the time limit or the deadline (their own tests). A call here
        // does well under a millisecond of work, but with a hundred tasks on two cores shared
        // with the whole suite its thread has been measured waiting up to 55 ms for a processor;
        // one call past 50 ms would be an error, and one past the deadline would stop the VM and
        // fail every later event.
        var limits = LuaLimits.wideDeadline
        limits.timeLimitMilliseconds = 60_000
        let policy = OverlapDetector(
            try LuaPolicy.load(
                contentsOf: Self.repository.appendingPathComponent("policies/polite/policy.lua"), displayName: "polite/policy.lua",
                limits: limits))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
        let platform = Platform(version: OSVersion(major: 16, minor: 4))
        let store = InMemoryLedgerStore()
        let engine = PermissionEngine(
            policy: policy, client: try SimulatedDevice(platform: platform, clock: clock), platform: platform,
            store: store, clock: clock, configuration: EngineConfiguration(foregroundRechecks: []))
        // Sanitizer runs in CI lower the per-task count (PERMIT_LOAD_EVENTS); the default is the
        // full 100 × 1,000.
        let tasks = 100
        let eventsPerTask = ProcessInfo.processInfo.environment["PERMIT_LOAD_EVENTS"].flatMap(Int.init).map { max(4, $0 / 4 * 4) } ?? 1000
        let errors = Locked(0)
        try await withTimeout(.seconds(600)) {
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for index in 0..<eventsPerTask {
                            let event: AppEvent =
                                switch (task + index) % 4 {
                                case 0: .appForeground
                                case 1: .featureOpened("feature-\(task % 10)")
                                case 2: .appBackground
                                default: .featureOpened("reminders")
                                }
                            let outcome = await engine.handle(event)
                            if !outcome.errors.isEmpty { errors.withLock { $0 += 1 } }
                        }
                    }
                }
            }
        }
        let history = await engine.history
        let total = tasks * eventsPerTask
        #expect(history.foregrounds == total / 4)
        #expect(history.features.values.reduce(0) { $0 + $1.opened } == total / 2)
        #expect(history.features["reminders"]?.opened == total / 4)
        #expect(policy.calls.current >= total)  // decide for every event (+ reminder plans)
        #expect(policy.answers.current >= total)  // through the engine's per-event path
        #expect(policy.overlaps.current == 0)
        #expect(errors.current == 0)
        #expect(store.ledger == history)
    }

    @Test func enginesSharingOneFileAreRefused() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-load-\(UUID().uuidString)/ledger.json")
        let first = try JSONFileLedgerStore(url: url)
        #expect(throws: LedgerStoreError.self) { try JSONFileLedgerStore(url: url) }
        withExtendedLifetime(first) {}
    }
}

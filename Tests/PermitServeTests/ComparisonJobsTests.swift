import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitServe

/// The page's comparisons: a Cancel, a new comparison or the time limit must stop the work
/// itself, not only the state the page polls. The job here stands for a simulation: it works
/// in small steps until it sees that it was cancelled, or gives up after a minute.
@Suite("permit serve: comparisons stop", .serialized)
struct ComparisonJobsTests {
    /// What the stand-in job saw: whether it stopped because it was cancelled.
    final class Probe: Sendable {
        let sawCancellation = Locked(false)

        func job() -> @Sendable (@escaping @Sendable (Int) -> Void) async throws -> (String, String) {
            { [sawCancellation] progress in
                let clock = ContinuousClock()
                let end = clock.now + .seconds(60)
                var step = 0
                while clock.now < end {
                    if Task.isCancelled {
                        sawCancellation.withLock { $0 = true }
                        throw CancellationError()
                    }
                    step += 1
                    progress(step)
                    try? await Task.sleep(for: .milliseconds(5))
                }
                return ("ran to its end", "")
            }
        }
    }

    @Test func aCancelStopsTheWork() async throws {
        let jobs = ComparisonJobs()
        let probe = Probe()
        let started = await jobs.start(total: 100, probe.job())
        #expect(await jobs.cancel(started.id)?.state == "cancelled")
        try await withTimeout { await jobs.settled() }
        #expect(probe.sawCancellation.current)
        #expect(await jobs.state(started.id)?.state == "cancelled")
    }

    @Test func aNewComparisonStopsTheOneBefore() async throws {
        let jobs = ComparisonJobs()
        let first = Probe()
        _ = await jobs.start(total: 100, first.job())
        let second = Probe()
        let next = await jobs.start(total: 100, second.job())
        #expect(await jobs.cancel(next.id)?.state == "cancelled")
        try await withTimeout { await jobs.settled() }
        // The second's task is the one `settled` waits for; the first was cancelled when it started.
        try await waitUntil { first.sawCancellation.current }
        #expect(second.sawCancellation.current)
    }

    @Test func theTimeLimitStopsTheWork() async throws {
        let jobs = ComparisonJobs(timeLimit: .seconds(1))
        let probe = Probe()
        let started = await jobs.start(total: 100, probe.job())
        try await withTimeout { await jobs.settled() }
        #expect(probe.sawCancellation.current)
        let state = await jobs.state(started.id)
        #expect(state?.state == "failed")
        #expect(state?.message?.hasPrefix("stopped after 1 s") == true, "\(String(describing: state))")
    }
}

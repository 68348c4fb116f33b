import Dispatch

/// Where a simulation's workers run: threads of a dispatch queue of their own, not Swift's
/// cooperative pool.
///
/// Why: a worker keeps its thread busy for seconds between suspensions (a block of users
/// runs to its end). On the cooperative pool, which has one thread per core, a run would leave
/// its host no thread for anything else until it ended: the playground's server could not
/// answer the page's progress polls or its Cancel, and a test process running a simulation
/// beside other tests would stall them. Dispatch's own threads are not part of that pool, so
/// the host keeps its threads whatever the simulation does.
public enum SimulationThreads {
    /// Runs `body`, and the tasks it starts, on threads of their own where the platform can
    /// (everywhere but Apple systems older than macOS 15 and iOS 18, where it runs as called).
    public static func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *) {
            return try await withTaskExecutorPreference(DispatchTaskExecutor()) { try await body() }
        }
        return try await body()
    }
}

/// A task executor that runs each job on a concurrent dispatch queue; one per run, as it costs
/// nothing while idle.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *)
private final class DispatchTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "permit.simulation", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

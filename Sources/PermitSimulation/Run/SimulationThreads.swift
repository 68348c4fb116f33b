import Foundation

/// Where a host runs simulations when it must keep Swift's cooperative pool free: a
/// process-wide set of threads of their own, one per core.
///
/// Why: a worker keeps its thread busy for a whole block of users between suspensions. On the
/// cooperative pool, which also has one thread per core, a run leaves its host no thread for
/// anything else until it ends: the playground's server could not answer the page's progress
/// polls or its Cancel. Wrapped in `run`, the simulation's tasks prefer these threads.
///
/// Why not always: the engine is an actor, and each of its calls from a task that prefers an
/// executor of its own becomes a hand-off between threads. Measured on `permit simulate`
/// (release, 5,000 users × 30 days, one worker, alternated): 12.3–12.5 s of CPU against
/// 9.8–11.5 s on the pool, so the command line, which has nothing else to run, stays on the
/// pool, and `Simulation.run` runs where its caller runs.
///
/// Why one set for the process, as wide as the cores: simulations running at once share the
/// cores whatever happens; one thread each would only add threads, memory and switches. Jobs
/// are taken in the order they arrive, so runs that start together advance together.
public enum SimulationThreads {
    /// Runs `body`, and the tasks it starts, on the simulation threads where the platform can
    /// (everywhere but Apple systems older than macOS 15 and iOS 18, where it runs as called).
    public static func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *) {
            return try await withTaskExecutorPreference(ThreadPoolExecutor.shared) { try await body() }
        }
        return try await body()
    }
}

/// A task executor over a fixed set of threads taking jobs from one first-in, first-out queue.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *)
private final class ThreadPoolExecutor: TaskExecutor, @unchecked Sendable {
    /// The process's simulation threads, one per active core.
    static let shared = ThreadPoolExecutor(threads: max(1, ProcessInfo.processInfo.activeProcessorCount))

    private let condition = NSCondition()
    // Guarded by `condition`: the jobs waiting, oldest at `head`.
    private var waiting: [UnownedJob] = []
    private var head = 0

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "permit.simulation.\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        waiting.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Each thread's loop: take the oldest job, run it, forever (the executor lives as long as
    /// the process).
    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while head == waiting.count { condition.wait() }
            let job = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1_024, head * 2 >= waiting.count {
                // Never empty under a steady stream: drop the taken half now and then.
                waiting.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}

import Foundation

/// A fixed set of threads of their own, taking jobs from one first-in, first-out queue: a task
/// executor for work that must not wait for Swift's cooperative pool, nor hold it.
///
/// Why: a simulation worker keeps its thread busy for a whole block of users between
/// suspensions. On the cooperative pool, which has one thread per core, a run leaves its host
/// no thread for anything else until it ends: the playground's server could not answer the
/// page's progress polls or its Cancel. A server started inside a test process meets the same
/// wall from the other side, with other tests' CPU-bound work holding the pool (and dispatch's
/// global queues, one thread a core too). Tasks that prefer these threads run on them.
///
/// Why not always: the engine is an actor, and each of its calls from a task that prefers an
/// executor of its own becomes a hand-off between threads. Measured on `permit simulate`
/// (release, 5,000 users × 30 days, one worker, alternated): 12.3–12.5 s of CPU against
/// 9.8–11.5 s on the pool, so the command line, which has nothing else to run, stays on the
/// pool, and `Simulation.run` runs where its caller runs.
///
/// Jobs are taken in the order they arrive, so runs that start together advance together.
public final class JobThreads: @unchecked Sendable {
    /// The process's simulation threads, one per active core: simulations running at once
    /// share the cores whatever happens, and one set each would only add threads, memory and
    /// switches. They live as long as the process.
    public static let simulation = JobThreads(count: max(1, ProcessInfo.processInfo.activeProcessorCount), name: "permit.simulation")

    private let condition = NSCondition()
    // Guarded by `condition`: the jobs waiting, oldest at `head`, and whether `stop` was called.
    private var waiting: [UnownedJob] = []
    private var head = 0
    private var stopped = false

    /// Starts `count` threads named `name.0`, `name.1`, ...
    public init(count: Int, name: String) {
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in work() }
            thread.name = "\(name).\(index)"
            thread.start()
        }
    }

    /// Runs `body`, and the tasks it starts, on these threads where the platform can
    /// (everywhere but Apple systems older than macOS 15 and iOS 18, where it runs as called).
    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *) {
            return try await withTaskExecutorPreference(self) { try await body() }
        }
        return try await body()
    }

    /// Starts `body` as a task preferring these threads (on older Apple systems, a plain task).
    public func task<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *) {
            return Task(executorPreference: self) { try await body() }
        }
        return Task { try await body() }
    }

    /// Lets the threads end once the jobs already queued have run; jobs queued later are never
    /// run, so stop only when the tasks on these threads have ended.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    fileprivate func add(_ job: UnownedJob) {
        condition.lock()
        waiting.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Each thread's loop: take the oldest job and run it, until stopped with nothing queued.
    private func work() {
        while let job = next() {
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *) {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    /// The oldest job, waiting for one; `nil` once stopped with none left.
    private func next() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while head == waiting.count, !stopped { condition.wait() }
        guard head < waiting.count else { return nil }
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
        return job
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *)
extension JobThreads: TaskExecutor {
    /// Queues a job for the threads.
    public func enqueue(_ job: consuming ExecutorJob) {
        add(UnownedJob(job))
    }
}

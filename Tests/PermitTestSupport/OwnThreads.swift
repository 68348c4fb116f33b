import Foundation

/// Starts `body` as a task whose jobs run on `threads`, threads of its own: neither Swift's
/// cooperative pool nor dispatch's global queues.
///
/// Why: a server a test starts in-process (the playground's) answers on whatever threads its
/// tasks get. In the full suite the cooperative pool's two threads are held by other tests'
/// CPU-bound work for minutes, and dispatch's global queues, which also run one thread a core,
/// by blocked reads and waits; a server on either answers so late that the test's requests
/// time out. On threads of its own it answers as it would in `permit serve`.
public func taskOnOwnThreads<T: Sendable>(
    _ threads: OwnThreads, _ body: @escaping @Sendable () async throws -> T
) -> Task<T, any Error> {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *) {
        return Task(executorPreference: threads) { try await body() }
    }
    return Task { try await body() }
}

/// A few threads taking jobs from one first-in, first-out queue, until `stop`.
public final class OwnThreads: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var waiting: [UnownedJob] = []
    private var stopped = false

    /// Starts `count` threads.
    public init(count: Int = 2) {
        for _ in 0..<count {
            Thread { [self] in work() }.start()
        }
    }

    /// Lets the threads end once the jobs already queued have run.
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

    private func work() {
        while true {
            condition.lock()
            while waiting.isEmpty, !stopped { condition.wait() }
            if waiting.isEmpty {
                condition.unlock()
                return
            }
            let job = waiting.removeFirst()
            condition.unlock()
            run(job)
        }
    }

    private func run(_ job: UnownedJob) {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *)
extension OwnThreads: TaskExecutor {
    /// Queues a job for the threads.
    public func enqueue(_ job: consuming ExecutorJob) {
        add(UnownedJob(job))
    }
}

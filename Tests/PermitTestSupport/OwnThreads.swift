import Dispatch

/// Starts `body` as a task whose jobs run on a dispatch queue of its own, not on Swift's
/// cooperative pool.
///
/// Why: a server a test starts in-process (the playground's) answers on whatever threads its
/// tasks get. In the full suite the cooperative pool's two threads are held by other tests'
/// CPU-bound work for long stretches, and a server there answers so late that the test's
/// requests time out. On threads of its own it answers as it would in `permit serve`.
public func taskOnOwnThreads<T: Sendable>(
    _ body: @escaping @Sendable () async throws -> T
) -> Task<T, any Error> {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *) {
        return Task(executorPreference: QueueExecutor()) { try await body() }
    }
    return Task { try await body() }
}

/// Runs each job on a concurrent dispatch queue.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, visionOS 2.0, *)
private final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "permit.test.own-threads", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

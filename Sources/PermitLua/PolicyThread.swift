import Dispatch
import Foundation
import PermitCore

/// A thread of its own for one policy's VM, so that the thread calling the policy can stop
/// waiting when a call does not come back in time.
///
/// Why a thread: the VM's own bounds (the count hook, the coarse clock) only act when the VM
/// runs instructions or charged C work; a C loop inside Lua that none of them sees cannot be
/// interrupted from outside without corrupting the state (a signal that unwinds could leave the
/// allocator locked). It can be left behind, though: the caller hands each job to this thread
/// and waits on a semaphore for at most the deadline. A job not finished by then is abandoned:
/// the caller returns at once, the thread finishes the job whenever it can (whatever the job
/// holds is freed then, on this thread) and ends; nothing is ever handed to it again.
///
/// One job at a time: the owner (`DeadlineLocked`) serialises callers. Every hand-over goes
/// through the semaphores, which order the memory the job touches on both sides, so a
/// `lua_State` is used by one thread at a time even though two threads take turns with it.
final class PolicyThread: @unchecked Sendable {
    private struct State {
        /// The job handed over and not yet taken.
        var job: (() -> Void)?
        /// What to run after the job when the caller stopped waiting for it.
        var onAbandon: (() -> Void)?
        /// The job taken last has finished.
        var finished = false
        /// The caller stopped waiting for the job in progress: end after it.
        var abandoned = false
        /// The owner is gone: end now.
        var stopping = false
    }

    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let state = Locked(State())

    /// Starts the thread, named so a crash report or a debugger shows whose it is.
    /// - Parameter stackBytes: the thread's stack (1 MiB, an iOS app's main thread's, by
    ///   default: the policy's C calls nest as deep as on the app's own threads).
    init(name: String, stackBytes: Int = 1 << 20) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.stackSize = stackBytes
        // The app's main thread may be the one waiting: the worker must not run below it.
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Runs `job` on the thread and waits for it at most `nanoseconds`; `false` when it did
    /// not finish in time: it is then abandoned, `onAbandon` runs on the thread once it
    /// returns (to free what only the job could still be using), and the thread ends.
    func perform(_ job: @escaping () -> Void, onAbandon: @escaping () -> Void = {}, waitingAtMost nanoseconds: Int) -> Bool {
        let start = DispatchTime.now()
        state.withLock { state in
            state.job = job
            state.onAbandon = onAbandon
            state.finished = false
        }
        ready.signal()
        if done.wait(timeout: start + .nanoseconds(nanoseconds)) == .success { return true }
        let finished = state.withLock { state in
            if !state.finished { state.abandoned = true }
            return state.finished
        }
        // It finished between the timeout and the check: its signal is on its way.
        if finished { done.wait() }
        return finished
    }

    /// Ends the thread once it is idle (the owner is gone); an abandoned one ends by itself.
    func stop() {
        state.withLock { $0.stopping = true }
        ready.signal()
    }

    private func loop() {
        while true {
            ready.wait()
            let next = state.withLock { state -> (job: () -> Void, onAbandon: (() -> Void)?)? in
                defer {
                    state.job = nil
                    state.onAbandon = nil
                }
                guard !state.stopping, let job = state.job else { return nil }
                return (job, state.onAbandon)
            }
            guard let next else { return }
            next.job()
            let abandoned = state.withLock { state in
                state.finished = true
                return state.abandoned
            }
            if abandoned {
                next.onAbandon?()
                return
            }
            done.signal()
        }
    }
}

/// What a job on a `PolicyThread` returned, for the caller to pick up once it finished (the
/// thread's semaphore orders the write before the read). A class, so that an abandoned job
/// keeps it alive on its own.
final class JobResult<Value>: @unchecked Sendable {
    var value: Value?
}

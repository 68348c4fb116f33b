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
        /// The thread sleeps on `ready`: whoever hands it something must wake it.
        var threadParked = false
        /// The caller sleeps on `done`: the end of the job must wake it.
        var callerParked = false
    }

    /// How many times each side looks for the other (yielding the processor in between) before
    /// it sleeps on a semaphore: some tens of microseconds, longer than a warm decision, so that
    /// back-to-back calls and a quick call's answer pass without waking a sleeping thread (a
    /// wake-up costs several microseconds, more than the decision itself).
    static let spins = 200

    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let state = Locked(State())

    /// Starts the thread, named so a crash report or a debugger shows whose it is.
    /// - Parameter stackBytes: the thread's stack (1 MiB, an iOS app's main thread's, by
    ///   default: the policy's C calls nest as deep as on the app's own threads).
    /// - Parameter heldUntil: the thread looks for its first job only once this is signalled
    ///   (tests stand for a thread the system has not run yet); `nil`, at once.
    init(name: String, stackBytes: Int = 1 << 20, heldUntil: DispatchSemaphore? = nil) {
        let thread = Thread { [self] in
            heldUntil?.wait()
            loop()
        }
        thread.name = name
        thread.stackSize = stackBytes
        // The app's main thread may be the one waiting: the worker must not run below it.
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// How a hand-over ended.
    enum Handover {
        /// The job ran on the thread and finished in time.
        case finished
        /// The thread never took the job (the system did not run it before the deadline): the job
        /// was withdrawn untouched, so the caller may run it itself.
        case notTaken
        /// The job was taken and did not finish in time: it is abandoned, `onAbandon` runs on the
        /// thread once it returns (to free what only the job could still be using), and the
        /// thread ends.
        case abandoned
    }

    /// Runs `job` on the thread and waits for it at most `nanoseconds`.
    ///
    /// A job the thread has not taken by then was never started: what held it up is the system
    /// (a busy device, or a test suite on two cores, can leave a woken thread waiting for a
    /// processor that long), not the job, so it is withdrawn rather than abandoned. Only a job
    /// that started and did not finish stops the thread.
    func perform(
        _ job: @escaping () -> Void, onAbandon: @escaping () -> Void = {}, waitingAtMost nanoseconds: Int
    ) -> Handover {
        let start = DispatchTime.now()
        let wake = state.withLock { state in
            state.job = job
            state.onAbandon = onAbandon
            state.finished = false
            defer { state.threadParked = false }
            return state.threadParked
        }
        if wake { ready.signal() }
        for _ in 0..<Self.spins {
            if state.withLock({ $0.finished }) { return .finished }
            sched_yield()
        }
        let parked = state.withLock { state in
            if !state.finished { state.callerParked = true }
            return !state.finished
        }
        guard parked else { return .finished }
        if done.wait(timeout: start + .nanoseconds(nanoseconds)) == .success { return .finished }
        let outcome = state.withLock { state -> Handover in
            if state.finished { return .finished }
            if state.job != nil {
                state.job = nil
                state.onAbandon = nil
                state.callerParked = false
                return .notTaken
            }
            state.abandoned = true
            return .abandoned
        }
        // It finished between the timeout and the check: its signal is on its way.
        if outcome == .finished { done.wait() }
        return outcome
    }

    /// Ends the thread once it is idle (the owner is gone); an abandoned one ends by itself.
    func stop() {
        let wake = state.withLock { state in
            state.stopping = true
            defer { state.threadParked = false }
            return state.threadParked
        }
        if wake { ready.signal() }
    }

    private func loop() {
        while let next = nextJob() {
            next.job()
            let (abandoned, wake) = state.withLock { state in
                state.finished = true
                defer { state.callerParked = false }
                return (state.abandoned, state.callerParked)
            }
            if abandoned {
                next.onAbandon?()
                return
            }
            if wake { done.signal() }
        }
    }

    /// The next job, looked for `spins` times before sleeping; `nil` once stopped.
    private func nextJob() -> (job: () -> Void, onAbandon: (() -> Void)?)? {
        var looked = 0
        while true {
            let found = state.withLock { state -> (stop: Bool, job: (() -> Void)?, onAbandon: (() -> Void)?, park: Bool) in
                if state.stopping { return (true, nil, nil, false) }
                if let job = state.job {
                    defer {
                        state.job = nil
                        state.onAbandon = nil
                    }
                    return (false, job, state.onAbandon, false)
                }
                if looked >= Self.spins { state.threadParked = true }
                return (false, nil, nil, state.threadParked)
            }
            if found.stop { return nil }
            if let job = found.job { return (job, found.onAbandon) }
            if found.park {
                ready.wait()
            } else {
                looked += 1
                sched_yield()
            }
        }
    }
}

/// What a job on a `PolicyThread` returned, for the caller to pick up once it finished (the
/// thread's semaphore orders the write before the read). A class, so that an abandoned job
/// keeps it alive on its own.
final class JobResult<Value>: @unchecked Sendable {
    var value: Value?
}

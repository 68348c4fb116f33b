import Foundation
import PermitCore

/// A clock that moves only when told to. Shared by the engine and the simulated device in a
/// scenario, so both see the same time.
///
/// A `sleep(for:)` on it ends when `advance(by:)` or `set(_:)` moves the time to or past its
/// deadline, never by itself: a test advances the clock and knows the engine's waits are over.
public final class ManualClock: PermitClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Sleeps cancelled before they were registered (the handler ran first).
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: Locked<State>

    /// A clock that reads `start` until it is moved.
    public init(_ start: Date) { state = Locked(State(now: start)) }

    /// The time the clock was last set or advanced to.
    public func now() -> Date { state.withLock { $0.now } }

    /// Moves the time forward and ends every sleep whose deadline it reaches.
    public func advance(by seconds: TimeInterval) {
        move { $0.addingTimeInterval(seconds) }
    }

    /// Sets the time and ends every sleep whose deadline it reaches.
    public func set(_ date: Date) {
        move { _ in date }
    }

    /// How many sleeps are waiting for the clock to move: a test waits for the engine to
    /// start its wait before it advances the clock past it.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until the clock is moved to `seconds` past the time of this call (at once for a
    /// zero duration); throws `CancellationError` when the task is cancelled first.
    public func sleep(seconds: TimeInterval) async throws {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    let deadline = state.now.addingTimeInterval(seconds)
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    private func move(_ change: (Date) -> Date) {
        // A simulation moves the clock several times per event with nobody asleep: that path
        // only sets the time (building and returning an empty array of due sleepers was most
        // of a move's cost).
        let anyoneAsleep = state.withLock { state -> Bool in
            state.now = change(state.now)
            return !state.sleepers.isEmpty
        }
        if anyoneAsleep { wakeDueSleepers() }
    }

    /// Ends every sleep whose deadline the clock has reached (by the time it reads the clock,
    /// which another thread may have moved further: any sleep due by then is due).
    private func wakeDueSleepers() {
        let due = state.withLock { state -> [Sleeper] in
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

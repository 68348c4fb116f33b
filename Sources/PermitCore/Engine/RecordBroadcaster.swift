/// Fans decision records out to `AsyncStream` subscribers and callbacks.
///
/// Why apart from `StatusBroadcaster`: a status stream replays the current value to a new
/// subscriber; a record stream does not (a record is an event, not a state), and the engine
/// builds a record only while someone listens (`isListened`, one uncontended lock).
final class RecordBroadcaster: Sendable {
    private struct State {
        var subscribers = StreamSubscribers<DecisionRecord>()
        var callbacks: [@Sendable (DecisionRecord) -> Void] = []
    }

    private let state = Locked(State())

    /// Whether any subscriber or callback is registered.
    var isListened: Bool { state.withLock { !$0.subscribers.isEmpty || !$0.callbacks.isEmpty } }

    func subscribe() -> AsyncStream<DecisionRecord> {
        let (stream, continuation) = AsyncStream.makeStream(of: DecisionRecord.self)
        let id = state.withLock { state in
            let id = state.subscribers.add(continuation)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.subscribers.remove(id) }
        }
        return stream
    }

    func add(_ callback: @escaping @Sendable (DecisionRecord) -> Void) {
        state.withLock { $0.callbacks.append(callback) }
    }

    func publish(_ record: DecisionRecord) {
        let callbacks = state.withLock { state in
            state.subscribers.yield(record)
            return state.callbacks
        }
        // Outside the lock: a callback may subscribe or add another.
        for callback in callbacks { callback(record) }
    }

    deinit {
        state.withLock { $0.subscribers.finishAll() }
    }
}

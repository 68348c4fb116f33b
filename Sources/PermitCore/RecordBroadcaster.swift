/// Fans decision records out to `AsyncStream` subscribers and callbacks.
///
/// Why apart from `StatusBroadcaster`: a status stream replays the current value to a new
/// subscriber; a record stream does not (a record is an event, not a state), and the engine
/// builds a record only while someone listens (`isListened`, one uncontended lock).
final class RecordBroadcaster: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<DecisionRecord>.Continuation] = [:]
        var callbacks: [@Sendable (DecisionRecord) -> Void] = []
        var nextID = 0
    }

    private let state = Locked(State())

    /// Whether any subscriber or callback is registered.
    var isListened: Bool { state.withLock { !$0.subscribers.isEmpty || !$0.callbacks.isEmpty } }

    func subscribe() -> AsyncStream<DecisionRecord> {
        let (stream, continuation) = AsyncStream.makeStream(of: DecisionRecord.self)
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func add(_ callback: @escaping @Sendable (DecisionRecord) -> Void) {
        state.withLock { $0.callbacks.append(callback) }
    }

    func publish(_ record: DecisionRecord) {
        let callbacks = state.withLock { state in
            for continuation in state.subscribers.values { continuation.yield(record) }
            return state.callbacks
        }
        // Outside the lock: a callback may subscribe or add another.
        for callback in callbacks { callback(record) }
    }

    deinit {
        state.withLock { state in
            for continuation in state.subscribers.values { continuation.finish() }
        }
    }
}

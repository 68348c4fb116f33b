/// Fans the permission status out to any number of `AsyncStream` subscribers.
///
/// Each subscriber gets the current status at once, then every distinct change. A subscriber
/// whose task is cancelled (or that stops iterating) is removed and released.
final class StatusBroadcaster: Sendable {
    private struct State {
        var current: PermissionStatus
        var subscribers = StreamSubscribers<PermissionStatus>()
    }

    private let state: Locked<State>

    init(initial: PermissionStatus) {
        state = Locked(State(current: initial))
    }

    var current: PermissionStatus { state.withLock { $0.current } }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    func subscribe() -> AsyncStream<PermissionStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: PermissionStatus.self)
        let id = state.withLock { state in
            let id = state.subscribers.add(continuation)
            // Yield under the lock so no change can slip between the snapshot and registration.
            continuation.yield(state.current)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.subscribers.remove(id) }
        }
        return stream
    }

    /// Publishes `status` if it differs from the current one.
    func publish(_ status: PermissionStatus) {
        state.withLock { state in
            guard status != state.current else { return }
            state.current = status
            state.subscribers.yield(status)
        }
    }

    deinit {
        state.withLock { $0.subscribers.finishAll() }
    }
}

import Foundation

/// A value guarded by a lock: the one primitive the core uses for state shared across threads
/// outside an actor (the simulated device, the status broadcaster, the manual clock, a Lua
/// policy's VM).
///
/// `@unchecked Sendable` is sound because every access goes through `withLock`.
///
/// The value lives in memory of its own rather than in a stored property: a class's stored
/// property passed `inout` pays a dynamic exclusivity check (a thread-local access set) on
/// every access, and the lock already makes each access exclusive. The lock is a plain
/// `pthread_mutex_t` for the same reason `NSLock` would be, minus a class's dispatch.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    /// Guards `value`.
    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value, under the lock; keep it short and never await inside.
    /// Inlinable, so that a use in another module (a Lua policy's VM lock, taken every event)
    /// is specialized there instead of running the generic body.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    /// A copy of the value, read under the lock.
    public var current: Value { withLock { $0 } }
}

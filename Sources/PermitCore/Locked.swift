import Foundation

/// A value guarded by a lock: the one primitive the core uses for state shared across threads
/// outside an actor (the simulated device, the status broadcaster, the manual clock).
///
/// `@unchecked Sendable` is sound because every access goes through `withLock`.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    public var current: Value { withLock { $0 } }
}

import Foundation

/// Where the engine gets "now". Injected, so scenarios and tests control time and a
/// `prompts_today` or a backoff is reproducible.
public protocol PermitClock: Sendable {
    func now() -> Date
}

/// The real wall clock.
public struct SystemClock: PermitClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to. Shared by the engine and the simulated device in a
/// scenario, so both see the same time.
public final class ManualClock: PermitClock {
    private let time: Locked<Date>

    public init(_ start: Date) { time = Locked(start) }

    public func now() -> Date { time.current }

    public func advance(by seconds: TimeInterval) {
        time.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        time.withLock { $0 = date }
    }
}

import Foundation

/// Where the engine gets "now", and how it waits. Injected, so scenarios and tests control
/// time and a `prompts_today`, a backoff or a delayed re-check is reproducible.
public protocol PermitClock: Sendable {
    /// The current time.
    func now() -> Date

    /// Suspends for `seconds` of this clock's time. The engine waits through its clock (for
    /// example before re-reading the status after a foreground) so that a test with a manual
    /// clock decides when the wait ends instead of sleeping for real.
    ///
    /// Seconds rather than `Duration`: `Duration` exists from iOS 16, and the library runs on
    /// iOS 13 (docs/platform.md, "Runs on").
    ///
    /// Throws `CancellationError` when the task is cancelled before the time is up.
    func sleep(seconds: TimeInterval) async throws
}

extension PermitClock {
    /// Sleeps in real time: right for any clock that follows the wall clock.
    public func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
    }

    /// `sleep(seconds:)` for a `Duration` (iOS 16+).
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public func sleep(for duration: Duration) async throws {
        try await sleep(seconds: duration.timeInterval)
    }
}

/// The real wall clock.
public struct SystemClock: PermitClock {
    /// The wall clock.
    public init() {}
    /// The current date.
    public func now() -> Date { Date() }
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension Duration {
    /// The duration in seconds, as `Date` arithmetic takes it.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

import Foundation

/// Thrown by `withTimeout` when the body is still running after its limit.
public struct TimedOut: Error, CustomStringConvertible {
    /// The limit that passed.
    public let limit: Duration
    public var description: String { "still waiting after \(limit): a stream or task that should have finished hangs" }
}

/// Runs `body` and fails with `TimedOut` if it has not finished within `limit`.
///
/// Why: a test that awaits a stream (`for await`, `iterator.next()`) hangs the whole suite
/// when a regression stops the stream, and a hang names no test. With a limit the one test
/// fails and says so. The limit is a hang detector, not a speed check: keep it generous (the
/// default is five minutes). On a two-core machine the suite's CPU-bound tests (simulations,
/// fits) can hold the cooperative pool for a minute or more, so an async test that is merely
/// starved must not read as hung: a 200-event test that takes a second alone once waited 111 s
/// in the full suite. Under a sanitizer (`make sanitize` sets PERMIT_SANITIZER) every limit is
/// ten times longer, as a ThreadSanitizer build runs 5-20 times slower. A real hang still
/// fails, only later.
///
/// On timeout the body's task is cancelled; an `AsyncStream` iterator then ends with `nil`,
/// so the body returns and nothing is left running.
public func withTimeout<T: Sendable>(
    _ limit: Duration = .seconds(300), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let limit = limit * sanitizerSlowdown
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut(limit: limit) }
        return value
    }
}

/// How many times longer a limit is in this build: 10 under a sanitizer, otherwise 1.
public let sanitizerSlowdown = ProcessInfo.processInfo.environment["PERMIT_SANITIZER"] == nil ? 1 : 10

/// Whether this run is under a sanitizer (`make sanitize` sets PERMIT_SANITIZER).
///
/// Why: a test whose subject is a frequency over many simulated runs (an interval's coverage
/// over seeds, a verdict never called robust on null sweeps) repeats code that shorter tests
/// run once; under a sanitizer, 5 to 20 times slower, those repeats cost most of CI's time and
/// find no memory error or race the shorter runs miss. Such a test is
/// `.disabled(if: underSanitizer, ...)`; `make test` runs it in full.
public let underSanitizer = sanitizerSlowdown > 1

/// Waits, yielding, until `condition` holds; fails with `TimedOut` after `limit`.
///
/// For a test that must let another task reach a point (start a wait, subscribe) before it
/// goes on, without a sleep of a guessed length.
public func waitUntil(
    _ limit: Duration = .seconds(300), _ condition: @escaping @Sendable () -> Bool
) async throws {
    try await withTimeout(limit) {
        while !condition() {
            try Task.checkCancellation()
            await Task.yield()
        }
    }
}

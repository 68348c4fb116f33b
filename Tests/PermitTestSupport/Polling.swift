import Foundation

/// Checks `condition` now, then every `interval` until `limit` of wall-clock time has passed,
/// and once more after that; whether it ever held.
///
/// Why the check after the limit: in the full suite a two-thread cooperative pool is shared by
/// hundreds of tests, and a task that sleeps 50 ms can be resumed half a minute later. A loop
/// that stopped at its deadline would then fail on time it never had to look; checking once
/// after the deadline fails only when the condition really never came.
public func poll(
    for limit: Duration, every interval: Duration, until condition: () async throws -> Bool
) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit * sanitizerSlowdown
    while clock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}

import Foundation
import PermitCore
import PermitDelivery

/// What one check did: the answer `BundleFetcher.check()` returns and `FetchStatus` keeps.
public enum FetchOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The server sent a bundle and the policy source installed it: it serves from the next event.
    case installed(version: Int64)
    /// The server answered 304: the bundle serving is still the published one.
    case notModified
    /// The server sent a bundle and the policy source refused it (the policy serving keeps
    /// serving; `PolicySource.status.events` has the same refusal).
    case refused(BundleError)
    /// The response was larger than `maximumBytes` (by its Content-Length, or while it
    /// streamed): the transfer was stopped, nothing was installed. A failure: backoff follows.
    case tooLarge(limit: Int)
    /// The server answered with another status (after redirects). A failure: backoff follows.
    case httpStatus(Int)
    /// No usable answer: a timeout, a refused or lost connection, a body shorter than its
    /// Content-Length. A failure: backoff follows.
    case transportError(String)
    /// No request was made: the last check was less than `minimumInterval` ago.
    case tooSoon(nextCheck: Date)
    /// No request was made: failures put the fetcher in backoff until then.
    case backingOff(until: Date)

    /// Whether the check counts as a failure (and sets a backoff).
    public var isFailure: Bool {
        switch self {
        case .tooLarge, .httpStatus, .transportError: true
        default: false
        }
    }

    /// Whether a request was sent (not a check skipped for the interval or the backoff).
    public var madeRequest: Bool {
        switch self {
        case .tooSoon, .backingOff: false
        default: true
        }
    }

    /// A sentence for a log or a diagnostics screen.
    public var description: String {
        switch self {
        case .installed(let version): "installed version \(version)"
        case .notModified: "not modified"
        case .refused(let error): "refused: \(error.description)"
        case .tooLarge(let limit): "refused: larger than \(limit) bytes (maximumBytes)"
        case .httpStatus(let status): "failed: HTTP \(status)"
        case .transportError(let reason): "failed: \(reason)"
        case .tooSoon(let next): "not checked: the last check was less than the minimum interval ago; next check from \(stamp(next))"
        case .backingOff(let until): "not checked: backing off after failures until \(stamp(until))"
        }
    }
}

/// One check that sent a request, and when.
public struct FetchRecord: Sendable, Hashable, CustomStringConvertible {
    /// When the check started, by the fetcher's clock.
    public var time: Date
    /// What it did.
    public var outcome: FetchOutcome

    /// `time: outcome`.
    public var description: String { "\(stamp(time)): \(outcome)" }
}

/// The download side of policy delivery, for an app's diagnostics screen: show it beside
/// `PolicySource.status` (what serves, and why).
public struct FetchStatus: Sendable, Hashable, CustomStringConvertible {
    /// The bundle's address.
    public var url: URL
    /// The last check of this launch that sent a request (a skipped check is not one).
    public var lastCheck: FetchRecord?
    /// The last time the server answered with the bundle serving or a newer one (installed,
    /// not modified, or the very version serving): the app was up to date then. Kept across
    /// launches, as are the failures and the backoff.
    public var lastSuccess: Date?
    /// Failures in a row since the last answer that was not one (0: none).
    public var consecutiveFailures: Int
    /// While failures hold checks back: until when (`nil`: not backing off).
    public var backingOffUntil: Date?
    /// The earliest time a check sends a request (the minimum interval or the backoff);
    /// `nil`: now.
    public var nextCheck: Date?
    /// The validators remembered for the bundle serving, sent as If-None-Match and
    /// If-Modified-Since while it serves.
    public var etag: String?
    /// See `etag`.
    public var lastModified: String?
    /// The checks that sent a request, oldest first (the last 20).
    public var history: [FetchRecord]
    /// Problems with the fetcher's own file (`bundle-fetcher.json`): damaged and set aside,
    /// or not writable. They cost a download, never a policy.
    public var storageWarnings: [String]

    /// One line: the last check and what holds the next one back.
    public var description: String {
        var parts = [lastCheck.map { "last check \($0)" } ?? "never checked"]
        if let backingOffUntil {
            parts.append("backing off after \(consecutiveFailures) failure(s) until \(stamp(backingOffUntil))")
        } else if let nextCheck {
            parts.append("next check from \(stamp(nextCheck))")
        }
        return parts.joined(separator: "; ")
    }
}

/// How long the fetcher waits after failures: `initial` after the first, multiplied by
/// `multiplier` after each further one, never more than `maximum`; each wait is then
/// shortened by a random part of up to `jitter` of it, so devices that failed together do
/// not come back together.
public struct FetchBackoff: Sendable, Hashable {
    /// The wait after the first failure, in seconds.
    public var initial: TimeInterval
    /// The growth per further failure.
    public var multiplier: Double
    /// The longest wait, in seconds.
    public var maximum: TimeInterval
    /// The share of each wait that is random, 0...1 (0.5: between half the wait and all of it).
    public var jitter: Double

    /// 5 minutes, doubling, at most 6 hours, up to half of each wait random.
    public init(initial: TimeInterval = 300, multiplier: Double = 2, maximum: TimeInterval = 6 * 3600, jitter: Double = 0.5) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The wait after `failures` failures in a row (≥ 1), with `random` in 0..<1.
    public func delay(afterFailures failures: Int, random: Double) -> TimeInterval {
        let exponent = Double(max(0, failures - 1))
        let full = min(maximum, initial * pow(max(1, multiplier), exponent))
        let share = min(1, max(0, jitter)) * min(1, max(0, random))
        return full * (1 - share)
    }
}

/// ISO 8601 in UTC, whole seconds: for messages.
func stamp(_ date: Date) -> String {
    InternetDateTime.string(from: date)
}

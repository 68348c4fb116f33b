import PermitCore

/// What the records show of the app's own events (`events:` in a model): how often each was
/// logged, on how many of an install's days, in which of the install's sessions, and the days
/// with a session they are counted against. `permit fit` turns them into each event's figure
/// in the form the base model gives it (`AppEventFit`).
///
/// Only the events a policy declares reach it, so only they are logged: an event the base
/// model has and the records never show is not identified (it may be one no policy hears).
public struct AppEventCounts: Sendable, Hashable {
    /// Times each event was logged.
    public private(set) var counts: [String: Int] = [:]
    /// Days (of an install) on which each event was logged at least once.
    public private(set) var days: [String: Int] = [:]
    /// For each event, how often it was logged in an install's n-th session.
    public private(set) var atInstallSession: [String: [Int: Int]] = [:]
    /// Days (of an install) with at least one session: what a daily chance is counted against.
    public private(set) var sessionDays = 0

    /// The built-in events: every other name in a record is one of the app's own.
    static let builtIn = Set(AppEvent.names)

    /// A session started on a day of the install that had none before.
    mutating func sessionDayStarted() { sessionDays += 1 }

    /// One logged event of the app's own: in the install's `installSession`-th session, on a
    /// day it was `firstToday` for the install.
    mutating func note(_ name: String, installSession: Int, firstToday: Bool) {
        counts[name, default: 0] += 1
        if firstToday { days[name, default: 0] += 1 }
        atInstallSession[name, default: [:]][installSession, default: 0] += 1
    }
}

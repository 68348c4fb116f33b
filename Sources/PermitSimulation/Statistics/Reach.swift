import PermitCore

/// Where a user's notifications stand at the end of a day: what a product team can count on
/// reaching them with. "Opt-in" used to lump quiet (provisional) delivery in with full
/// authorization; a quiet notification lands only in Notification Center, so the two are kept
/// apart, and the headline is `fullAlerts` alone.
public enum Reach: String, Sendable, CaseIterable, Hashable {
    /// Authorized with alerts on: the user sees the notification. The headline, "can receive alerts".
    case fullAlerts = "full_alerts"
    /// Provisional, or authorized with alerts off: notifications arrive quietly in Notification Center.
    case quiet
    /// An App Clip's ephemeral authorization.
    case ephemeral
    /// Denied.
    case denied
    /// Not determined: the app never got an answer.
    case neverAsked = "never_asked"

    /// How reports label it.
    public var label: String {
        switch self {
        case .fullAlerts: "can receive alerts"
        case .quiet: "quiet (provisional)"
        case .ephemeral: "ephemeral"
        case .denied: "denied"
        case .neverAsked: "never asked"
        }
    }

    /// The reach of a device in this state. `settings` is read only when authorized (the one
    /// case where it decides), so callers can pass it lazily.
    static func of(_ status: PermissionStatus, alert: @autoclosure () -> SettingValue) -> Reach {
        switch status {
        case .authorized: alert() == .enabled ? .fullAlerts : .quiet
        case .provisional: .quiet
        case .ephemeral: .ephemeral
        case .denied: .denied
        case .notDetermined, .unknown: .neverAsked
        }
    }
}

/// Users in each `Reach` at the end of one day (installed users only; the rest have no app).
public struct ReachCounts: Sendable, Hashable {
    private var counts = [Int](repeating: 0, count: Reach.allCases.count)

    /// No users.
    public init() {}

    /// Users in `reach`.
    public subscript(reach: Reach) -> Int {
        get { counts[Reach.allCases.firstIndex(of: reach)!] }
        set { counts[Reach.allCases.firstIndex(of: reach)!] = newValue }
    }

    /// Users with the app installed.
    public var installed: Int { counts.reduce(0, +) }

    /// One user's state as a byte: the index of the `Reach` the user is counted in, or
    /// `notInstalledCode` for a user without the app (no state counted).
    var code: UInt8 {
        for index in counts.indices where counts[index] > 0 { return UInt8(index) }
        return Self.notInstalledCode
    }

    /// The code of a user without the app.
    static let notInstalledCode = UInt8(Reach.allCases.count)

    /// The code of `reach` (`nil`: without the app).
    static func code(_ reach: Reach?) -> UInt8 {
        reach.map { UInt8(Reach.allCases.firstIndex(of: $0)!) } ?? notInstalledCode
    }

    mutating func add(_ other: ReachCounts) {
        for index in counts.indices { counts[index] += other.counts[index] }
    }
}

/// One line of a status list on a prompt or a page: a setting's name and what it reads
/// ("Time Sensitive" · "Off"). The app lays the two out as its own screens do (name on the
/// left, value on the right), so the policy sends them apart rather than joined in a message.
public struct InfoRow: Sendable, Hashable {
    /// The row's name (`Notifications`).
    public var name: LocalizedText
    /// What it reads (`On`, `Scheduled`).
    public var value: LocalizedText

    /// A row of `name` and `value`.
    public init(name: LocalizedText, value: LocalizedText) {
        self.name = name
        self.value = value
    }

    /// The most rows a prompt or a page may carry: a screen's status list, not a table of data.
    public static let limit = 16
}

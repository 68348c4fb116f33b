/// A notification's content as a policy gives it: a decision's `notify`, and a reminder's
/// fields but its time (`ReminderRequest.content`). One type, so both are read and localised by
/// the same rules.
public struct NotificationRequest: Sendable, Hashable {
    /// The notification's title, if any.
    public var title: LocalizedText?
    /// The notification's text.
    public var body: LocalizedText
    /// The notification category / action identifier the app handles.
    public var action: String?
    /// Whether it plays a sound.
    public var sound: Bool
    /// The badge number to set, if any.
    public var badge: Int?
    /// Stable identifier, without the engine's `permit.` prefix.
    public var id: String?
    /// The interruption level asked for (iOS 15+); `nil`: the system's default (active).
    public var interruptionLevel: InterruptionLevel?

    /// A notification's content; the defaults are no title, with a sound.
    public init(
        title: LocalizedText? = nil, body: LocalizedText, action: String? = nil, sound: Bool = true, badge: Int? = nil,
        id: String? = nil, interruptionLevel: InterruptionLevel? = nil
    ) {
        self.title = title
        self.body = body
        self.action = action
        self.sound = sound
        self.badge = badge
        self.id = id
        self.interruptionLevel = interruptionLevel
    }

    /// The identifier a posted notification gets: `permit.notify.<id>`, or
    /// `permit.notify.<seconds>` without one. Apart from reminders' identifiers, so a posted
    /// notification never replaces a pending reminder of the same `id`.
    public static func postedIdentifier(for id: String?, at seconds: Int64) -> String {
        ReminderPlanner.ownedPrefix + "notify." + (id ?? String(seconds))
    }
}

import Foundation

/// One reminder as `plan_reminders` returns it: a local time on a day counted from today.
public struct ReminderRequest: Sendable, Hashable {
    /// Days from today in the device's time zone; 0 is today.
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var title: LocalizedText?
    public var body: LocalizedText
    /// The notification category / action identifier the app handles.
    public var action: String?
    public var sound: Bool
    public var badge: Int?
    /// Stable identifier; defaults to one derived from the fire date.
    public var id: String?

    public init(
        day: Int = 0, hour: Int, minute: Int = 0, title: LocalizedText? = nil, body: LocalizedText,
        action: String? = nil, sound: Bool = true, badge: Int? = nil, id: String? = nil
    ) {
        self.day = day
        self.hour = hour
        self.minute = minute
        self.title = title
        self.body = body
        self.action = action
        self.sound = sound
        self.badge = badge
        self.id = id
    }
}

/// A local notification handed to the system, with its texts already localised.
public struct ScheduledReminder: Sendable, Hashable, Codable {
    public var id: String
    public var fireDate: Date
    /// `nil` when the alert setting is disabled: only badge and sound are scheduled then.
    public var title: String?
    public var body: String?
    public var action: String?
    public var sound: Bool
    public var badge: Int?

    public init(
        id: String, fireDate: Date, title: String? = nil, body: String? = nil, action: String? = nil,
        sound: Bool = true, badge: Int? = nil
    ) {
        self.id = id
        self.fireDate = fireDate
        self.title = title
        self.body = body
        self.action = action
        self.sound = sound
        self.badge = badge
    }

    /// Whether the notification shows an alert (title or body), rather than badge and sound only.
    public var presentsAlert: Bool { title != nil || body != nil }
}

import Foundation

/// One reminder as `plan_reminders` returns it: a local time on a day counted from today.
public struct ReminderRequest: Sendable, Hashable {
    /// Days from today in the device's time zone; 0 is today.
    public var day: Int
    /// The local hour, 0–23.
    public var hour: Int
    /// The minute, 0–59.
    public var minute: Int
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
    /// Stable identifier; defaults to one derived from the fire date.
    public var id: String?
    /// The interruption level asked for (iOS 15+); `nil`: the system's default (active).
    public var interruptionLevel: InterruptionLevel?

    /// A reminder; the defaults are today, on the hour, with a sound.
    public init(
        day: Int = 0, hour: Int, minute: Int = 0, title: LocalizedText? = nil, body: LocalizedText,
        action: String? = nil, sound: Bool = true, badge: Int? = nil, id: String? = nil,
        interruptionLevel: InterruptionLevel? = nil
    ) {
        self.interruptionLevel = interruptionLevel
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

    /// A reminder at this local time with `content`'s fields.
    public init(day: Int = 0, hour: Int, minute: Int = 0, content: NotificationRequest) {
        self.init(
            day: day, hour: hour, minute: minute, title: content.title, body: content.body, action: content.action,
            sound: content.sound, badge: content.badge, id: content.id, interruptionLevel: content.interruptionLevel)
    }
}

/// A local notification handed to the system, with its texts already localised.
///
/// Its fields are constants: a record of what was scheduled, and, measured, cheaper to make. With
/// `var` fields the optimizer copied each new reminder once as it was initialised (its strings
/// retained, then the original's released), on every reminder planned. `firing(at:)` gives the same notification at another time.
public struct ScheduledReminder: Sendable, Hashable, Codable {
    /// The identifier the system keeps it under: a second schedule with it replaces the first.
    public let id: String
    /// When it fires.
    public let fireDate: Date
    /// `nil` when the alert setting is disabled: only badge and sound are scheduled then.
    public let title: String?
    /// The text (`nil` with the alert setting off).
    public let body: String?
    /// The category the app handles.
    public let action: String?
    /// Whether it plays a sound.
    public let sound: Bool
    /// The badge number to set.
    public let badge: Int?
    /// The interruption level it is delivered with: from iOS 15, `active` unless another was set
    /// (iOS's default); `nil` before iOS 15, which has none.
    public let interruptionLevel: InterruptionLevel?

    /// A notification ready for the system. An empty title, body or action is none, as iOS
    /// stores them.
    public init(
        id: String, fireDate: Date, title: String? = nil, body: String? = nil, action: String? = nil,
        sound: Bool = true, badge: Int? = nil, interruptionLevel: InterruptionLevel? = nil
    ) {
        self.interruptionLevel = interruptionLevel
        self.id = id
        self.fireDate = fireDate
        // iOS has no "no title", only an empty one (AppleNotificationContent): an empty text is
        // none, so a reminder reads back from the notification center as it was scheduled.
        self.title = title?.isEmpty == true ? nil : title
        self.body = body?.isEmpty == true ? nil : body
        self.action = action?.isEmpty == true ? nil : action
        self.sound = sound
        self.badge = badge
    }

    /// Whether the notification shows an alert (title or body), rather than badge and sound only.
    public var presentsAlert: Bool { title != nil || body != nil }

    /// The same notification, firing at `date` instead (a device moving it to another time zone).
    public func firing(at date: Date) -> ScheduledReminder {
        ScheduledReminder(
            id: id, fireDate: date, title: title, body: body, action: action, sound: sound, badge: badge,
            interruptionLevel: interruptionLevel)
    }
}

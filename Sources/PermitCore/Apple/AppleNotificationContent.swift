import Foundation

/// A reminder as `UNNotificationContent` holds it, in plain values: what the adapter writes when
/// it schedules one, and what it reads back of a pending request.
///
/// Why it exists: the engine compares the reminders a plan wants with what is pending, and keeps
/// each one that is equal. So a pending reminder must read back equal to the one that was
/// scheduled. A difference made up on the way (a level not read back, an empty title read as a
/// title) would replace the reminder on every plan. The mapping lives here, in cross-platform code
/// tested on every platform; the `UserNotifications` adapter only moves these values.
public struct AppleNotificationContent: Sendable, Hashable {
    /// `title`: iOS has no "no title", only the empty string.
    public var title: String
    /// `body`, the same way.
    public var body: String
    /// `categoryIdentifier`: the reminder's action category, empty for none.
    public var categoryIdentifier: String
    /// Whether `sound` is set (the adapter sets the default sound).
    public var hasSound: Bool
    /// `badge`, when set.
    public var badge: Int?
    /// `interruptionLevel`'s raw value (`AppleMapping.interruptionLevelRawValue`). iOS 15+ only:
    /// `nil` before, where content has no level. From iOS 15 a content whose level was never set
    /// reports `active` (1), iOS's default.
    public var interruptionLevelRawValue: UInt?

    /// Content with these values, as read from a pending request.
    public init(
        title: String, body: String, categoryIdentifier: String, hasSound: Bool, badge: Int?,
        interruptionLevelRawValue: UInt?
    ) {
        self.title = title
        self.body = body
        self.categoryIdentifier = categoryIdentifier
        self.hasSound = hasSound
        self.badge = badge
        self.interruptionLevelRawValue = interruptionLevelRawValue
    }

    /// What the adapter writes to schedule `reminder`. A reminder without a level leaves the
    /// content's level unset (`nil` here).
    public init(scheduling reminder: ScheduledReminder) {
        self.init(
            title: reminder.title ?? "", body: reminder.body ?? "", categoryIdentifier: reminder.action ?? "",
            hasSound: reminder.sound, badge: reminder.badge,
            interruptionLevelRawValue: reminder.interruptionLevel.map(AppleMapping.interruptionLevelRawValue))
    }

    /// The reminder a pending request with this content stands for, at `fireDate` (its
    /// trigger's next date). Empty texts become none in `ScheduledReminder`'s initializer.
    public func reminder(id: String, fireDate: Date) -> ScheduledReminder {
        ScheduledReminder(
            id: id, fireDate: fireDate, title: title, body: body, action: categoryIdentifier, sound: hasSound,
            badge: badge, interruptionLevel: interruptionLevelRawValue.flatMap(AppleMapping.interruptionLevel(fromRawValue:)))
    }
}

import Foundation
import Testing

@testable import PermitCore

/// The Apple adapter writes a reminder as `AppleNotificationContent` and reads pending requests
/// back through it. The engine keeps a pending reminder only when it equals the one a plan wants,
/// so whatever the round trip changed would replace the reminder on every plan: these tests hold
/// the round trip exact, on the part of it that is not Apple's own code.
@Suite struct AppleNotificationContentTests {
    /// Every reminder the planner can hand the adapter reads back equal, on each side of iOS 15,
    /// with iOS's one change on the way modelled: a content whose level was never set reports
    /// `active` (1) from iOS 15, and no level before.
    @Test(arguments: ["14.8", "15.0", "17.2"])
    func aScheduledReminderReadsBackAsItWasScheduled(os: String) throws {
        let version = try OSVersion(parsing: os)
        let settings = NotificationSettings.typical(for: .authorized, on: version, entitlements: [.timeSensitive])
        let fireDate = Date(timeIntervalSince1970: 1_767_690_000)  // 2026-01-06 09:00 UTC
        var checked = 0
        for requested in [nil] + InterruptionLevel.allCases.map(Optional.some) {
            for (title, body) in [(nil, "Your table is ready"), ("Lunch", "Your table is ready"), (nil, nil), ("", "")] {
                for (action, sound, badge) in [(nil, true, nil), ("open", false, 3)] as [(String?, Bool, Int?)] {
                    let reminder = ScheduledReminder(
                        id: "permit.reminder.\(checked)", fireDate: fireDate, title: title, body: body, action: action,
                        sound: sound, badge: badge,
                        interruptionLevel: InterruptionLevel.delivered(requested, on: version, settings: settings))
                    var stored = AppleNotificationContent(scheduling: reminder)
                    stored.interruptionLevelRawValue =
                        version >= OSVersion(major: 15) ? stored.interruptionLevelRawValue ?? 1 : nil
                    #expect(stored.reminder(id: reminder.id, fireDate: reminder.fireDate) == reminder, "\(reminder)")
                    checked += 1
                }
            }
        }
        #expect(checked == 40)
    }

    /// What a pending request holds, read as iOS gives it: empty texts are none, a content
    /// without a level set is `active` from iOS 15, and a level this version does not know is no
    /// level (the reminder then differs from any planned one and is replaced).
    @Test func aPendingRequestReadsAsIOSStoresIt() {
        let at = Date(timeIntervalSince1970: 1_767_690_000)
        let plain = AppleNotificationContent(
            title: "", body: "Your table is ready", categoryIdentifier: "", hasSound: true, badge: nil,
            interruptionLevelRawValue: 1)
        let reminder = plain.reminder(id: "r", fireDate: at)
        #expect(reminder.title == nil && reminder.action == nil && reminder.body == "Your table is ready")
        #expect(reminder.interruptionLevel == .active)
        var unknown = plain
        unknown.interruptionLevelRawValue = 7
        #expect(unknown.reminder(id: "r", fireDate: at).interruptionLevel == nil)
        var before15 = plain
        before15.interruptionLevelRawValue = nil
        #expect(before15.reminder(id: "r", fireDate: at).interruptionLevel == nil)
        #expect(
            InterruptionLevel.allCases.allSatisfy {
                AppleMapping.interruptionLevel(fromRawValue: AppleMapping.interruptionLevelRawValue($0)) == $0
            })
    }

    /// The trigger the adapter builds names the fire date's minute on the device's clock, so a
    /// planned fire date (whole minutes) is the date the trigger gives back.
    @Test(arguments: ["UTC", "Europe/Berlin", "America/Santiago", "Asia/Kolkata"])
    func aTriggerNamesTheFireDateItself(zone: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        for fireDate in [1_767_690_000, 1_775_000_040, 1_788_000_000].map({ Date(timeIntervalSince1970: TimeInterval($0)) }) {
            #expect(calendar.date(from: AppleMapping.triggerComponents(for: fireDate, in: timeZone)) == fireDate)
        }
    }
}

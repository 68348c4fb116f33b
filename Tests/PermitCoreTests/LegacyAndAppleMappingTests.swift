import Foundation
import Testing

@testable import PermitCore

@Suite struct LegacyResolutionTests {
    /// Every row of the iOS 8–9 truth table.
    static let rows: [(LegacyNotificationTypes, Bool, PermissionStatus)] = [
        (.all, false, .authorized),
        (.all, true, .authorized),
        ([.badge], false, .authorized),
        ([.alert, .sound], true, .authorized),
        ([], true, .denied),
        ([], false, .notDetermined),
    ]

    @Test(arguments: rows)
    func truthTable(types: LegacyNotificationTypes, registered: Bool, expected: PermissionStatus) {
        #expect(legacyPermissionStatus(types: types, registered: registered) == expected)
    }

    @Test func freshInstallIsNeverDeniedAndADenialIsNeverNotAsked() {
        #expect(legacyPermissionStatus(types: [], registered: false) != .denied)
        #expect(legacyPermissionStatus(types: [], registered: true) != .notDetermined)
    }

    @Test func typesBecomeSettings() {
        let settings = LegacyNotificationTypes([.alert, .badge]).settings
        #expect(settings.alert == .enabled && settings.badge == .enabled && settings.sound == .disabled)
        #expect(settings.lockScreen == .notSupported && settings.timeSensitive == .notSupported)
        #expect(LegacyNotificationTypes(enabledIn: settings) == [.alert, .badge])
        #expect(LegacyNotificationTypes.badge.rawValue == 1)
        #expect(LegacyNotificationTypes.sound.rawValue == 2)
        #expect(LegacyNotificationTypes.alert.rawValue == 4)
    }

    @Test func snapshotResolvesWithTheFlag() {
        let legacy = NotificationSnapshot(authorization: .legacyTypes([]), settings: LegacyNotificationTypes().settings)
        #expect(legacy.status(legacyRegistered: false) == .notDetermined)
        #expect(legacy.status(legacyRegistered: true) == .denied)
        let modern = NotificationSnapshot(authorization: .status(.provisional), settings: .unsupported)
        #expect(modern.status(legacyRegistered: true) == .provisional)
    }
}

@Suite struct AppleMappingTests {
    /// The adapter's trigger for the Santiago reminders shows 09:00, 14:00 and 20:00 on the
    /// wall clock of 6, 7 and 8 September, the day without a midnight included.
    @Test func triggerComponentsOnADayWithoutMidnight() throws {
        let zone = try #require(TimeZone(identifier: "America/Santiago"))
        let now = try #require(ISO8601DateFormatter().date(from: "2026-09-06T05:00:00Z"))
        let requests = (0...2).flatMap { day in [9, 14, 20].map { ReminderRequest(day: day, hour: $0, body: "x") } }
        let plan = ReminderPlanner.plan(requests, now: now, timeZone: zone, locale: "en", pending: [], contentShown: true)
        let parts = plan.toSchedule.map { AppleMapping.triggerComponents(for: $0.fireDate, in: zone) }
        #expect(
            parts.map { [$0.year, $0.month, $0.day, $0.hour, $0.minute] }
                == (6...8).flatMap { day in
                    [9, 14, 20].map { [2026, 9, day, $0, 0] }
                })
    }

    @Test func authorizationStatusRawValues() {
        #expect(
            (0...4).map(AppleMapping.status(fromAuthorizationStatus:))
                == [.notDetermined, .denied, .authorized, .provisional, .ephemeral])
        #expect(AppleMapping.status(fromAuthorizationStatus: 5) == nil)
        #expect(AppleMapping.status(fromAuthorizationStatus: -1) == nil)
    }

    @Test func settingRawValues() {
        #expect((0...2).map(AppleMapping.setting(fromRaw:)) == [.notSupported, .disabled, .enabled])
        #expect(AppleMapping.setting(fromRaw: 7) == .notSupported)
    }

    @Test func settingsFromRawValuesWithMissingNewerOnes() {
        let settings = AppleMapping.settings(
            alert: 2, sound: 1, badge: 2, lockScreen: 2, notificationCenter: 2, carPlay: 0,
            criticalAlert: nil, timeSensitive: nil, scheduledDelivery: 1)
        #expect(
            settings
                == NotificationSettings(
                    alert: .enabled, sound: .disabled, badge: .enabled, lockScreen: .enabled, notificationCenter: .enabled,
                    carPlay: .notSupported, criticalAlert: .notSupported, timeSensitive: .notSupported,
                    scheduledDelivery: .disabled))
    }

    /// `areActivitiesEnabled` (iOS 16.1+) becomes `live_activities`; before 16.1 there is none.
    @Test func liveActivitiesFromActivityKit() {
        func read(_ enabled: Bool?) -> SettingValue {
            AppleMapping.settings(
                alert: 1, sound: 1, badge: 1, lockScreen: 1, notificationCenter: 1, carPlay: 0, criticalAlert: 0,
                timeSensitive: 1, scheduledDelivery: 1, liveActivities: enabled
            ).liveActivities
        }
        #expect([read(true), read(false), read(nil)] == [.enabled, .disabled, .notSupported])
    }

    @Test func authorizationOptionBits() {
        #expect(AppleMapping.authorizationOptionsRawValue([.badge, .sound, .alert]) == 7)
        #expect(AppleMapping.authorizationOptionsRawValue([.carPlay]) == 8)
        #expect(AppleMapping.authorizationOptionsRawValue([.criticalAlert]) == 16)
        #expect(AppleMapping.authorizationOptionsRawValue([.providesAppSettings]) == 32)
        #expect(AppleMapping.authorizationOptionsRawValue([.provisional]) == 64)
        #expect(AppleMapping.authorizationOptionsRawValue([]) == 0)
    }

    @Test func legacyTypesKeepOnlyWhatIOS9Knows() {
        #expect(AppleMapping.legacyTypes(for: [.alert, .provisional, .carPlay]) == [.alert])
        #expect(AppleMapping.legacyTypes(for: [.alert, .sound, .badge]) == .all)
    }
}

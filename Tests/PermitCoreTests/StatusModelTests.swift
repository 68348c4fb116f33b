import Foundation
import Testing

@testable import PermitCore

@Suite struct PermissionStatusTests {
    @Test func luaNamesMatchTheSpec() {
        #expect(
            PermissionStatus.allCases.map(\.rawValue)
                == ["unknown", "not_determined", "denied", "authorized", "provisional", "ephemeral"])
    }

    @Test(arguments: [
        (PermissionStatus.unknown, false, false, false),
        (.notDetermined, false, true, false),
        (.denied, false, false, true),
        (.authorized, true, false, false),
        (.provisional, true, true, false),
        (.ephemeral, true, true, false),
    ])
    func derivedChecks(status: PermissionStatus, granted: Bool, dialog: Bool, denied: Bool) {
        #expect(status.isGranted == granted)
        #expect(status.allowsSystemDialog == dialog)
        #expect(status.isDenied == denied)
    }

    @Test func provisionalRequestShowsNoDialogOn12ButAFullOneDoes() {
        #expect(!PermissionStatus.notDetermined.requestShowsDialog(options: [.provisional], provisionalSupported: true))
        #expect(PermissionStatus.provisional.requestShowsDialog(options: [.alert], provisionalSupported: true))
        #expect(!PermissionStatus.provisional.requestShowsDialog(options: [.alert, .provisional], provisionalSupported: true))
        #expect(PermissionStatus.notDetermined.requestShowsDialog(options: [.provisional], provisionalSupported: false))
        #expect(!PermissionStatus.denied.requestShowsDialog(options: [.alert], provisionalSupported: true))
    }

    @Test func settingNamesMatchTheSpec() {
        #expect(
            NotificationSettings.names == [
                "alert", "sound", "badge", "lock_screen", "notification_center", "car_play",
                "critical_alert", "time_sensitive", "scheduled_delivery", "live_activities",
            ])
        #expect(SettingValue.allCases.map(\.rawValue) == ["enabled", "disabled", "not_supported"])
    }

    @Test func settingsEncodeWithLuaNamesAndDecodePartially() throws {
        let data = try JSONEncoder().encode(NotificationSettings(alert: .enabled, lockScreen: .disabled))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"lock_screen\":\"disabled\""))
        let partial = try JSONDecoder().decode(NotificationSettings.self, from: Data(#"{"alert":"enabled"}"#.utf8))
        #expect(partial.alert == .enabled)
        #expect(partial.sound == .notSupported)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(NotificationSettings.self, from: Data(#"{"alert":"on"}"#.utf8))
        }
    }

    @Test func typicalSettingsFollowTheVersion() {
        let nine = NotificationSettings.typical(for: .authorized, on: version("9.3"))
        #expect(nine.alert == .enabled && nine.lockScreen == .notSupported && nine.criticalAlert == .notSupported)
        let eleven = NotificationSettings.typical(for: .authorized, on: version("11"))
        #expect(eleven.lockScreen == .enabled && eleven.criticalAlert == .notSupported)
        let sixteen = NotificationSettings.typical(for: .denied, on: version("16"))
        #expect(sixteen.timeSensitive == .disabled && sixteen.alert == .disabled)
        let provisional = NotificationSettings.typical(for: .provisional, on: version("12"))
        #expect(provisional.notificationCenter == .enabled && provisional.alert == .disabled)
    }
}

@Suite struct OSVersionTests {
    @Test(arguments: [("9", 9, 0, 0), ("12.4", 12, 4, 0), ("15.4.1", 15, 4, 1), (" 16.0 ", 16, 0, 0)])
    func parses(text: String, major: Int, minor: Int, patch: Int) throws {
        let parsed = try OSVersion(parsing: text)
        #expect(parsed == OSVersion(major: major, minor: minor, patch: patch))
    }

    @Test(arguments: [
        ("", "it is empty"),
        ("abc", "the major part \"abc\" is not a number"),
        ("12.", "the minor part is empty"),
        ("12.4.1.2", "it has 4 parts"),
        ("12.x", "the minor part \"x\" is not a number"),
        ("-3", "is not a number"),
        ("7.1", "Permit models iOS 8 and later"),
        ("99999", "is not a number"),
    ])
    func rejectsWithAReason(text: String, reason: String) {
        #expect {
            try OSVersion(parsing: text)
        } throws: { error in
            let message = (error as? OSVersionError)?.description ?? ""
            return message.contains(reason) && message.contains("\"\(text)\"")
        }
    }

    @Test func comparesNumerically() {
        #expect(version("15.10") > version("15.4"))
        #expect(version("12") == version("12.0.0"))
        #expect(version("9.3") < version("10"))
        #expect(version("15.4").description == "15.4")
        #expect(version("9").description == "9.0")
        #expect(version("15.4.1").description == "15.4.1")
    }

    /// The four operators OSVersion spells out agree with the order of (major, minor, patch)
    /// on every pair of a grid that differs in each part.
    @Test func allFourOperatorsFollowThePartsInOrder() {
        let parts = [0, 1, 10]
        let versions = parts.flatMap { a in parts.flatMap { b in parts.map { c in OSVersion(major: 8 + a, minor: b, patch: c) } } }
        for x in versions {
            for y in versions {
                let before = [x.major, x.minor, x.patch].lexicographicallyPrecedes([y.major, y.minor, y.patch])
                let same = x.major == y.major && x.minor == y.minor && x.patch == y.patch
                #expect((x < y) == before, "\(x) < \(y)")
                #expect((x > y) == (!before && !same), "\(x) > \(y)")
                #expect((x <= y) == (before || same), "\(x) <= \(y)")
                #expect((x >= y) == !before, "\(x) >= \(y)")
            }
        }
    }

    @Test func decodesFromNumbersAndStrings() throws {
        let decoded = try JSONDecoder().decode([OSVersion].self, from: Data(#"["12.4", 9, 15.4]"#.utf8))
        #expect(decoded == [version("12.4"), version("9"), version("15.4")])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([OSVersion].self, from: Data(#"["nine"]"#.utf8)) }
    }
}

@Suite struct CapabilitiesTests {
    @Test(arguments: [
        // version, app clip, user_notifications, provisional, ephemeral, settings link, time sensitive
        ("8.4", false, false, false, false, false, false),
        ("9.3", false, false, false, false, false, false),
        ("10.0", false, true, false, false, false, false),
        ("11.4", false, true, false, false, false, false),
        ("12.0", false, true, true, false, false, false),
        ("14.0", false, true, true, false, false, false),
        ("14.0", true, true, true, true, false, false),
        ("13.7", true, true, true, false, false, false),
        ("15.0", false, true, true, false, false, true),
        ("15.3.1", false, true, true, false, false, true),
        ("15.4", false, true, true, false, true, true),
        ("16.2", true, true, true, true, true, true),
    ])
    func derivedFromTheVersion(
        text: String, appClip: Bool, user: Bool, provisional: Bool, ephemeral: Bool, link: Bool, timeSensitive: Bool
    ) {
        let capabilities = Capabilities(version: version(text), isAppClip: appClip)
        #expect(capabilities.userNotifications == user)
        #expect(capabilities.provisional == provisional)
        #expect(capabilities.ephemeral == ephemeral)
        #expect(capabilities.notificationSettingsLink == link)
        #expect(capabilities.timeSensitive == timeSensitive)
    }

    @Test func luaNames() {
        #expect(
            Capabilities(version: version("16")).namedValues.map(\.name)
                == ["user_notifications", "provisional", "ephemeral", "notification_settings_link", "time_sensitive"])
        #expect(platform("9.3").usesLegacyRegistration)
        #expect(!platform("10.0").usesLegacyRegistration)
        #expect(platform("12").os == "ios")
    }
}

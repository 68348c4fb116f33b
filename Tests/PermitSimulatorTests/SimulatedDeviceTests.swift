import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

@Suite struct SimulatedDeviceTests {
    func device(
        _ os: String, appClip: Bool = false, _ authorization: PermissionStatus? = nil, stale: Int = 0
    )
        -> (SimulatedDevice, ManualClock)
    {
        let clock = ManualClock(start)
        let device = try! SimulatedDevice(
            platform: platform(os, appClip: appClip), clock: clock, authorization: authorization,
            staleReadsAfterChange: stale, ephemeralNotifications: appClip)
        return (device, clock)
    }

    /// docs/platform.md P-02: "Deliver Prominently" turns on what the provisional request asked
    /// for (here alert and badge), not every setting.
    @Test func deliverProminentlyTurnsOnTheProvisionalRequestsOptions() throws {
        let (device, _) = device("16.0")
        #expect(device.request(options: [.provisional, .alert, .badge]) == .answeredWithoutDialog(granted: true))
        #expect(device.settings.notificationCenter == .enabled && device.settings.alert == .disabled)
        try device.changeInSettings(authorization: .authorized)
        let settings = device.settings
        #expect(device.authorization == .authorized)
        #expect(settings.alert == .enabled && settings.badge == .enabled)
        // CarPlay not asked for, and critical alerts without their entitlement, are not supported.
        #expect(settings.sound == .disabled && settings.carPlay == .notSupported && settings.criticalAlert == .notSupported)
    }

    /// docs/platform.md S-01: Allow grants what the request asked for.
    @Test func allowGrantsOnlyTheRequestedOptions() throws {
        let (device, _) = device("16.0")
        #expect(device.request(options: [.alert]) == .dialogShown)
        try device.answerDialog(allow: true)
        let settings = device.settings
        #expect(settings.alert == .enabled && settings.notificationCenter == .enabled && settings.lockScreen == .enabled)
        #expect(settings.sound == .disabled && settings.badge == .disabled && settings.carPlay == .notSupported)
    }

    /// docs/platform.md S-02, S-03, S-04: critical alerts only when requested and entitled;
    /// time-sensitive only with its entitlement, on iOS 15+; Scheduled Summary off after Allow.
    @Test(arguments: [[], [NotificationEntitlement.criticalAlerts, .timeSensitive]])
    func entitledSettingsNeedTheirEntitlement(entitlements: [NotificationEntitlement]) throws {
        let entitled = !entitlements.isEmpty
        for (os, timeSensitiveExists) in [("14.8", false), ("16.0", true)] {
            let device = try SimulatedDevice(platform: platform(os), clock: ManualClock(start), entitlements: Set(entitlements))
            #expect(device.request(options: [.alert, .criticalAlert]) == .dialogShown)
            try device.answerDialog(allow: true)
            let settings = device.settings
            #expect(settings.criticalAlert == (entitled ? .enabled : .notSupported), "\(os) \(entitlements)")
            let timeSensitive: SettingValue = timeSensitiveExists ? (entitled ? .enabled : .disabled) : .notSupported
            #expect(settings.timeSensitive == timeSensitive, "\(os) \(entitlements)")
            #expect(settings.scheduledDelivery == (timeSensitiveExists ? .disabled : .notSupported), "\(os)")
        }
        // Not requested: no critical alerts (disabled when entitled, not supported without).
        let device = try SimulatedDevice(platform: platform("16.0"), clock: ManualClock(start), entitlements: Set(entitlements))
        _ = device.request(options: [.alert])
        try device.answerDialog(allow: true)
        #expect(device.settings.criticalAlert == (entitled ? .disabled : .notSupported))
    }

    @Test func dialogAppearsAtMostOncePerInstall() throws {
        let (device, _) = device("16.0")
        #expect(device.request(options: [.alert]) == .dialogShown)
        try device.answerDialog(allow: true)
        #expect(device.request(options: [.alert]) == .answeredWithoutDialog(granted: true))
        #expect(device.dialogsShownThisInstall == 1)
    }

    @Test func noDialogAfterADenial() throws {
        let (device, _) = device("16.0")
        #expect(device.request(options: [.alert]) == .dialogShown)
        try device.answerDialog(allow: false)
        #expect(device.request(options: [.alert, .sound]) == .answeredWithoutDialog(granted: false))
        #expect(!device.isDialogOnScreen)
        #expect(device.authorization == .denied)
    }

    @Test func noDialogWhileInTheBackground() {
        let (device, _) = device("16.0")
        device.isInForeground = false
        #expect(device.request(options: [.alert]) == .answeredWithoutDialog(granted: false))
        #expect(device.authorization == .notDetermined)
        device.isInForeground = true
        #expect(device.request(options: [.alert]) == .dialogShown)
    }

    @Test func onlyOneDialogOnScreenAtATime() {
        let (device, _) = device("16.0")
        #expect(device.request(options: [.alert]) == .dialogShown)
        #expect(device.request(options: [.alert]) == .answeredWithoutDialog(granted: false))
        #expect(device.dialogsShownThisInstall == 1)
    }

    @Test func answeringWithoutADialogIsAnError() {
        let (device, _) = device("16.0")
        #expect(throws: SimulatedDeviceError.noDialogOnScreen) { try device.answerDialog(allow: true) }
    }

    @Test func provisionalIsGrantedWithoutADialogOn12() {
        let (device, _) = device("12.0")
        #expect(device.request(options: [.alert, .provisional]) == .answeredWithoutDialog(granted: true))
        #expect(device.authorization == .provisional)
        #expect(device.dialogsShownThisInstall == 0)
        #expect(device.read().status(legacyRegistered: false) == .provisional)
    }

    @Test func aFullRequestWhileProvisionalShowsTheRealDialog() throws {
        let (device, _) = device("15.0", .provisional)
        #expect(device.request(options: [.alert, .provisional]) == .answeredWithoutDialog(granted: true))
        #expect(device.request(options: [.alert, .sound]) == .dialogShown)
        try device.answerDialog(allow: true)
        #expect(device.authorization == .authorized)
        #expect(device.settings.alert == .enabled)
    }

    @Test func provisionalOptionIsIgnoredBelow12() {
        let (device, _) = device("11.4")
        #expect(device.request(options: [.provisional, .alert]) == .dialogShown)
        #expect(throws: SimulatedDeviceError.self) {
            try SimulatedDevice(platform: platform("11.4"), clock: SystemClock(), authorization: .provisional)
        }
    }

    /// docs/platform.md.
    @Test func appClipsAreEphemeralOnlyWithTheKeyForEightHoursAfterEachLaunch() throws {
        // Without NSAppClipRequestEphemeralUserNotification: not determined, the real dialog.
        let plain = try SimulatedDevice(platform: platform("14.2", appClip: true), clock: ManualClock(start))
        #expect(plain.authorization == .notDetermined)
        plain.launch()
        #expect(plain.authorization == .notDetermined)
        #expect(plain.request(options: [.alert]) == .dialogShown)
        #expect(throws: SimulatedDeviceError.self) {
            try SimulatedDevice(platform: platform("14.2", appClip: true), clock: SystemClock(), authorization: .ephemeral)
        }
        // With it: ephemeral for 8 hours after each launch, then not determined.
        let (clip, clock) = device("14.2", appClip: true)
        #expect(clip.authorization == .ephemeral)
        clock.advance(by: 7 * 3_600)
        clip.launch()
        clock.advance(by: 7 * 3_600)
        #expect(clip.read().status(legacyRegistered: false) == .ephemeral)
        clock.advance(by: 3_600)
        #expect(clip.read().status(legacyRegistered: false) == .notDetermined)
        clip.launch()
        #expect(clip.read().status(legacyRegistered: false) == .ephemeral)
        // A full request while ephemeral shows the real dialog; Allow makes it for good.
        #expect(clip.request(options: [.alert]) == .dialogShown)
        try clip.answerDialog(allow: true)
        clock.advance(by: 9 * 3_600)
        #expect(clip.read().status(legacyRegistered: false) == .authorized)
        #expect(throws: SimulatedDeviceError.self) {
            try SimulatedDevice(platform: platform("16"), clock: SystemClock(), authorization: .ephemeral)
        }
        #expect(throws: SimulatedDeviceError.self) {
            try SimulatedDevice(platform: platform("16"), clock: SystemClock(), authorization: .unknown)
        }
    }

    @Test func iOS9ExposesOnlyTheEnabledTypes() throws {
        let (device, _) = device("9.3")
        let before = device.read()
        #expect(before.authorization == .legacyTypes([]))
        #expect(before.settings.lockScreen == .notSupported)
        #expect(device.register(types: [.alert, .badge]) == .dialogShown)
        try device.answerDialog(allow: true)
        let after = device.read()
        #expect(after.authorization == .legacyTypes([.alert, .badge]))
        #expect(after.settings.alert == .enabled && after.settings.sound == .disabled)
    }

    @Test func iOS9RegisterCallbackFiresAtOnceWhenNoDialogCanShow() throws {
        let (device, _) = device("9.3")
        #expect(device.register(types: .all) == .dialogShown)
        try device.answerDialog(allow: false)
        #expect(device.read().authorization == .legacyTypes([]))
        #expect(device.register(types: .all) == .answeredWithoutDialog(granted: false))
        device.isInForeground = false
        let (fresh, _) = self.device("9.3")
        fresh.isInForeground = false
        #expect(fresh.register(types: .all) == .answeredWithoutDialog(granted: false))
    }

    @Test func settingsChangesAreSeenOnlyOnTheNextRead() throws {
        let (device, _) = device("16.0", .denied)
        let before = device.read()
        try device.changeInSettings(authorization: .authorized)
        #expect(before.authorization == .status(.denied))
        #expect(device.read().authorization == .status(.authorized))
    }

    @Test func staleReadsReportTheOldValueUntilALaterRead() throws {
        let (device, _) = device("16.0", .denied, stale: 2)
        _ = device.read()
        try device.changeInSettings(authorization: .authorized)
        #expect(device.read().authorization == .status(.denied))
        #expect(device.read().authorization == .status(.denied))
        #expect(device.read().authorization == .status(.authorized))
    }

    @Test func settingsChangesAreValidated() throws {
        let (fresh, _) = device("16.0")
        #expect(throws: SimulatedDeviceError.notListedInSettings) { try fresh.changeInSettings(authorization: .authorized) }
        let (nine, _) = device("9.3", .authorized)
        #expect(throws: SimulatedDeviceError.self) { try nine.changeInSettings(settings: [.lockScreen: .disabled]) }
        let (granted, _) = device("16.0", .authorized)
        #expect(throws: SimulatedDeviceError.self) { try granted.changeInSettings(authorization: .notDetermined) }
        try granted.changeInSettings(settings: [.alert: .disabled])
        #expect(granted.read().settings.alert == .disabled)
        #expect(granted.read().authorization == .status(.authorized))
    }

    @Test func reinstallForgetsOrRemembers() throws {
        let (device, _) = device("16.0")
        _ = device.request(options: [.alert])
        try device.answerDialog(allow: false)
        device.reinstall(systemRemembers: true)
        #expect(device.authorization == .denied)
        #expect(device.request(options: [.alert]) == .answeredWithoutDialog(granted: false))
        device.reinstall(systemRemembers: false)
        #expect(device.authorization == .notDetermined)
        #expect(device.request(options: [.alert]) == .dialogShown)
        #expect(device.dialogsShownInAll == 2)
        #expect(device.dialogsShownThisInstall == 1)
    }

    @Test func reinstallOnIOS9WithTheSystemRememberingTheDenial() throws {
        let (device, _) = device("9.3")
        _ = device.register(types: .all)
        try device.answerDialog(allow: false)
        device.reinstall(systemRemembers: true)
        // The app's flag is gone with its storage: empty types read as "not asked" ...
        #expect(device.read().status(legacyRegistered: false) == .notDetermined)
        // ... until a registration, whose callback fires at once without a dialog.
        #expect(device.register(types: .all) == .answeredWithoutDialog(granted: false))
    }

    @Test func reinstallRemovesPendingReminders() async {
        let (device, _) = device("16.0", .authorized)
        device.add([ScheduledReminder(id: "a", fireDate: start + hour, body: "x")])
        device.reinstall(systemRemembers: true)
        #expect(await device.pendingReminders().isEmpty)
    }

    @Test func deliveredRemindersLeaveThePendingList() {
        let (device, clock) = device("16.0", .authorized)
        device.add([
            ScheduledReminder(id: "a", fireDate: start + hour, body: "first"),
            ScheduledReminder(id: "b", fireDate: start + 3 * hour, body: "second"),
        ])
        #expect(device.pending.map(\.id) == ["a", "b"])
        clock.advance(by: 2 * hour)
        #expect(device.pending.map(\.id) == ["b"])
        #expect(device.delivered.map(\.id) == ["a"])
        clock.advance(by: 2 * hour)
        #expect(device.pending.isEmpty)
        #expect(device.delivered.map(\.id) == ["a", "b"])
    }

    /// The pending list is shown soonest first whatever order reminders were added in, and
    /// two at the same time stay in the order they were added (the list is returned as stored
    /// only when it is already in that order).
    @Test func pendingIsSoonestFirstAndStableForEqualTimes() {
        let (device, clock) = device("16.0", .authorized)
        device.add([
            ScheduledReminder(id: "late", fireDate: start + 5 * hour, body: "x"),
            ScheduledReminder(id: "tie1", fireDate: start + 2 * hour, body: "x"),
            ScheduledReminder(id: "early", fireDate: start + hour, body: "x"),
            ScheduledReminder(id: "tie2", fireDate: start + 2 * hour, body: "x"),
        ])
        #expect(device.pending.map(\.id) == ["early", "tie1", "tie2", "late"])
        device.add([ScheduledReminder(id: "early", fireDate: start + 6 * hour, body: "moved")])
        #expect(device.pending.map(\.id) == ["tie1", "tie2", "late", "early"])
        clock.advance(by: 3 * hour)
        #expect(device.delivered.map(\.id) == ["tie1", "tie2"])
        #expect(device.pending.map(\.id) == ["late", "early"])
    }

    @Test func systemKeepsThe64SoonestAndReplacesByIdentifier() {
        let (device, _) = device("16.0", .authorized)
        let many = (1...70).map { ScheduledReminder(id: "r\($0)", fireDate: start + Double(71 - $0) * hour, body: "b") }
        device.add(many)
        #expect(device.pending.count == 64)
        #expect(!device.pending.contains { $0.id == "r1" })  // the latest ones went
        device.add([ScheduledReminder(id: "r70", fireDate: start + 100 * hour, body: "moved")])
        #expect(device.pending.filter { $0.id == "r70" }.map(\.body) == ["moved"])
    }
}

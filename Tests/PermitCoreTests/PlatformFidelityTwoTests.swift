import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// The rules of docs/platform.md added by "Platform fidelity 2": each cross-platform function
/// the simulated device and the Apple adapter share, and the device's behaviour built on them.
@Suite struct PlatformFidelityTwoTests {
    static let utc = TimeZone(identifier: "UTC")!

    func reminder(_ id: String, hoursFromStart hours: Double) -> ScheduledReminder {
        ScheduledReminder(id: id, fireDate: start.addingTimeInterval(hours * 3_600), body: id)
    }

    // MARK: 64 pending

    @Test func theOverflowDefaultFollowsTheReportsPerVersion() {
        #expect(PendingOverflow.observed(on: version("10.3")) == .soonest)
        #expect(PendingOverflow.observed(on: version("11.0")) == .newest)
        #expect(PendingOverflow.observed(on: version("17.5")) == .newest)
    }

    /// Added in order: a late one first, then sooner ones. `newest` drops the first added,
    /// `soonest` the latest firing; both keep the order they were added in.
    @Test func newestDropsTheFirstAddedAndSoonestTheLatestFiring() {
        let added = [
            reminder("late", hoursFromStart: 100), reminder("b", hoursFromStart: 3),
            reminder("c", hoursFromStart: 2), reminder("d", hoursFromStart: 1),
        ]
        #expect(PendingOverflow.newest.kept(added, limit: 3).map(\.id) == ["b", "c", "d"])
        #expect(PendingOverflow.soonest.kept(added, limit: 3).map(\.id) == ["b", "c", "d"])
        let sooner = [
            reminder("a", hoursFromStart: 1), reminder("b", hoursFromStart: 2),
            reminder("c", hoursFromStart: 3), reminder("late", hoursFromStart: 0.5),
        ]
        #expect(PendingOverflow.newest.kept(sooner, limit: 3).map(\.id) == ["b", "c", "late"])
        #expect(PendingOverflow.soonest.kept(sooner, limit: 3).map(\.id) == ["a", "b", "late"])
        #expect(PendingOverflow.soonest.kept(sooner, limit: 4).map(\.id) == ["a", "b", "c", "late"])
    }

    @Test func theDeviceAppliesItsOverflowRule() throws {
        for (overflow, kept) in [(PendingOverflow.newest, ["n1", "n2", "s1", "s2"]), (.soonest, ["n1", "s1", "s2"])] {
            let clock = ManualClock(start)
            let device = try SimulatedDevice(
                platform: platform("16.4"), clock: clock, authorization: .authorized, pendingOverflow: overflow)
            device.add((1...64).map { reminder("f\($0)", hoursFromStart: 24 * Double($0)) })
            device.add([
                reminder("n1", hoursFromStart: 1), reminder("n2", hoursFromStart: 5000),
                reminder("s1", hoursFromStart: 2), reminder("s2", hoursFromStart: 3),
            ])
            let ids = Set(device.pending.map(\.id))
            #expect(device.pending.count == 64)
            #expect(Set(kept).isSubset(of: ids), "\(overflow)")
            #expect(device.pending.map(\.fireDate) == device.pending.map(\.fireDate).sorted(), "pending is soonest first")
        }
    }

    // MARK: Z-01, Z-02: time zones

    @Test func aFloatingReminderKeepsItsWallClockInTheNewZone() throws {
        let taipei = try #require(TimeZone(identifier: "Asia/Taipei"))
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        // 2026-01-05 09:00 in Taipei is 01:00 UTC; 09:00 in Berlin (UTC+1) is 08:00 UTC.
        let nineInTaipei = Date(timeIntervalSince1970: 1_767_574_800)
        let moved = AppleMapping.floatingFireDate(nineInTaipei, scheduledIn: taipei, firingIn: berlin)
        #expect(moved == Date(timeIntervalSince1970: 1_767_600_000))
        #expect(AppleMapping.floatingFireDate(nineInTaipei, scheduledIn: taipei, firingIn: taipei) == nineInTaipei)
    }

    @Test func theDeviceMovesPendingRemindersToTheSameLocalTime() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_571_200))  // 2026-01-05 00:00 UTC
        let taipei = try #require(TimeZone(identifier: "Asia/Taipei"))
        let device = try SimulatedDevice(platform: platform("16.4"), clock: clock, authorization: .authorized, timeZone: taipei)
        device.add([ScheduledReminder(id: "nine", fireDate: Date(timeIntervalSince1970: 1_767_574_800), body: "x")])
        device.changeTimeZone(to: try #require(TimeZone(identifier: "Europe/Berlin")))
        #expect(device.pending.map(\.fireDate) == [Date(timeIntervalSince1970: 1_767_600_000)])
        #expect(device.timeZone.identifier == "Europe/Berlin")
    }

    /// Without the engine following the new zone, 23:30 in Taipei stays Jan 5 and the day's
    /// prompt count is kept; in Tokyo it is 00:30 on Jan 6.
    @Test func theEnginesLocalDayFollowsASignificantTimeChange() async throws {
        var ledger = Ledger()
        ledger.promptsToday = 2
        ledger.promptsDay = "2026-01-05"
        let world = World(timeZone: "Asia/Taipei", ledger: ledger, policy: always(.none))
        world.advance(7.5 * 3_600)  // 15:30 UTC: 23:30 in Taipei
        _ = await world.engine.handle(.appLaunch)
        #expect(await world.engine.history.promptsToday == 2)
        let outcome = await world.engine.handle(.significantTimeChange(timeZone: try #require(TimeZone(identifier: "Asia/Tokyo"))))
        #expect(await world.engine.history.promptsToday == 0)
        #expect(await world.engine.history.promptsDay == "2026-01-06")
        #expect(outcome.event.fields.first?.value == .string("Asia/Tokyo"))
    }

    // MARK: X-01: another SDK asks

    @Test func anOutsideRequestShowsTheDialogOnlyWhenItCan() throws {
        let clock = ManualClock(start)
        let device = try SimulatedDevice(platform: platform("16.4"), clock: clock)
        #expect(device.externalRequest(allow: true) == .dialogAnswered(granted: true))
        #expect(device.authorization == .authorized && device.dialogsShownThisInstall == 1)
        #expect(device.externalRequest(allow: false) == .noDialog)
        #expect(device.authorization == .authorized)
        let away = try SimulatedDevice(platform: platform("16.4"), clock: clock)
        away.isInForeground = false
        #expect(away.externalRequest(allow: true) == .noDialog)
        #expect(away.authorization == .notDetermined)
    }

    @Test func theEngineLearnsAnOutsideAnswerAtItsNextRead() async {
        let world = World(os: "16.4", policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        world.device.externalRequest(allow: true)
        #expect(await world.engine.handle(.featureOpened("diary")).statusAfter == .notDetermined)
        let foreground = await world.engine.handle(.appForeground)
        #expect(foreground.statusAfter == .authorized)
        #expect(foreground.registerForRemoteNotifications)
    }

    // MARK: N-02: remote registration

    /// By default at every launch, whatever the status (registering needs no permission), and
    /// whenever the status becomes granted.
    @Test func remoteRegistrationAtEachLaunchAndWhenGranted() {
        #expect(Outcome.registersForRemoteNotifications(event: .appLaunch, before: .unknown, after: .authorized))
        #expect(Outcome.registersForRemoteNotifications(event: .appLaunch, before: .authorized, after: .provisional))
        #expect(Outcome.registersForRemoteNotifications(event: .appLaunch, before: .unknown, after: .denied))
        #expect(Outcome.registersForRemoteNotifications(event: .appLaunch, before: .unknown, after: .notDetermined))
        #expect(
            Outcome.registersForRemoteNotifications(
                event: .systemPromptAnswered(granted: true), before: .notDetermined, after: .authorized))
        #expect(Outcome.registersForRemoteNotifications(event: .appForeground, before: .denied, after: .authorized))
        #expect(!Outcome.registersForRemoteNotifications(event: .appForeground, before: .authorized, after: .authorized))
        #expect(!Outcome.registersForRemoteNotifications(event: .featureOpened("x"), before: .ephemeral, after: .ephemeral))
    }

    // MARK: N-01: the in-app settings link

    @Test func theSettingsLinkExistsOnlyAfterARequestWithTheOption() throws {
        let clock = ManualClock(start)
        let device = try SimulatedDevice(platform: platform("16.4"), clock: clock)
        #expect(throws: SimulatedDeviceError.noAppSettingsLink) { try device.openAppSettingsLink() }
        _ = device.request(options: [.alert, .providesAppSettings])
        try device.answerDialog(allow: false)
        #expect(device.showsAppSettingsLink)
        device.isInForeground = false
        try device.openAppSettingsLink()
        #expect(device.isInForeground)
        let old = try SimulatedDevice(platform: platform("11.4"), clock: clock)
        _ = old.request(options: [.alert, .providesAppSettings])
        #expect(!old.showsAppSettingsLink, "the link came with iOS 12")
    }

    // MARK: D-02, D-03: leaving with the dialog up

    @Test func leavingWithTheDialogUpDismissesDeniesOrKeepsIt() throws {
        let clock = ManualClock(start)
        let dismisses = try SimulatedDevice(platform: platform("17.2"), clock: clock)
        #expect(dismisses.dialogOnBackground == .dismisses, "the newest report is the default")
        _ = dismisses.request(options: [.alert])
        #expect(dismisses.moveToBackground() == .dialogDismissed)
        #expect(dismisses.authorization == .notDetermined && !dismisses.isDialogOnScreen)
        dismisses.isInForeground = true
        #expect(dismisses.request(options: [.alert]) == .dialogShown, "the app may ask again")
        let denies = try SimulatedDevice(platform: platform("16.4"), clock: clock, dialogOnBackground: .denies)
        _ = denies.request(options: [.alert])
        #expect(denies.moveToBackground() == .dialogDenied)
        #expect(denies.authorization == .denied && !denies.isDialogOnScreen)
        let stays = try SimulatedDevice(platform: platform("16.4"), clock: clock, dialogOnBackground: .stays)
        _ = stays.request(options: [.alert])
        #expect(stays.moveToBackground() == .dialogStays)
        #expect(stays.authorization == .notDetermined && stays.isDialogOnScreen && !stays.isInForeground)
        try stays.answerDialog(allow: true)
        #expect(stays.authorization == .authorized)
        #expect(stays.moveToBackground() == .noDialog)
    }

    // MARK: S-05: interruption levels

    @Test func interruptionLevelsNeedIOS15AndTheirEntitlement() {
        let entitled = NotificationSettings.typical(for: .authorized, on: version("16.4"), entitlements: [.timeSensitive])
        let plain = NotificationSettings.typical(for: .authorized, on: version("16.4"), entitlements: [])
        #expect(InterruptionLevel.delivered(.timeSensitive, on: version("16.4"), settings: entitled) == .timeSensitive)
        #expect(InterruptionLevel.delivered(.timeSensitive, on: version("16.4"), settings: plain) == .active)
        #expect(InterruptionLevel.delivered(.critical, on: version("16.4"), settings: plain) == .active)
        #expect(InterruptionLevel.delivered(.passive, on: version("16.4"), settings: plain) == .passive)
        #expect(InterruptionLevel.delivered(.passive, on: version("14.8"), settings: plain) == nil)
        #expect(InterruptionLevel.delivered(nil, on: version("16.4"), settings: plain) == .active)
        #expect(InterruptionLevel.delivered(nil, on: version("14.8"), settings: plain) == nil)
        #expect(InterruptionLevel.allCases.map(AppleMapping.interruptionLevelRawValue) == [0, 1, 2, 3])
    }
}

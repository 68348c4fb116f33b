import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// A decision's `notify`: the engine localises it, hands it to the system to deliver now, and
/// the outcome and the decision record show it; the simulated iPhone delivers it as its
/// authorization and settings allow (docs/platform.md N-04).
@Suite struct EngineNotifyTests {
    static let warning = NotificationRequest(
        title: .translations(["en": "Notifications are off", "de": "Mitteilungen sind aus"]),
        body: .translations(["en": "Turn them on", "de": "Schalte sie ein"]), id: "unsafe")

    static func notifying(_ request: NotificationRequest = warning, action: Decision.Action = .none) -> ClosurePolicy {
        ClosurePolicy { context in
            guard context.event == .backgroundRefresh else { return nil }
            var decision = Decision(action)
            decision.notify = request
            return decision
        }
    }

    @Test func postsTheLocalisedNotificationAtOnce() async throws {
        let world = World(authorization: .authorized, locale: "de", policy: Self.notifying())
        world.device.isInForeground = false
        let outcome = await world.engine.handle(.backgroundRefresh)
        #expect(outcome.errors.isEmpty)
        let posted = try #require(outcome.notificationsPosted.first)
        #expect(outcome.notificationsPosted.count == 1)
        #expect(posted.id == "permit.notify.unsafe")
        #expect(posted.title == "Mitteilungen sind aus" && posted.body == "Schalte sie ein")
        #expect(posted.fireDate == start && posted.sound && posted.interruptionLevel == .active)
        #expect(world.device.posted == [PostedNotification(notification: posted, delivery: .banner, playedSound: true)])
        #expect(world.device.pending.isEmpty)
        // The decision record prints it, texts localised.
        let fields = outcome.decision.fields
        #expect(
            fields["notify"]
                == .table([
                    "title": .string("Mitteilungen sind aus"), "body": .string("Schalte sie ein"), "id": .string("unsafe"),
                    "sound": .bool(true),
                ]))
    }

    @Test func aMissingTranslationIsAnErrorNamingTheFieldAndPostsNothing() async {
        let request = NotificationRequest(title: .plain("Off"), body: .translations(["fr": "Éteint"]))
        let world = World(authorization: .authorized, policy: Self.notifying(request))
        let outcome = await world.engine.handle(.backgroundRefresh)
        #expect(outcome.errors.map(\.field) == ["decision.notify.body"])
        #expect(outcome.errors.first?.kind == .missingTranslation)
        #expect(outcome.notificationsPosted.isEmpty && world.device.posted.isEmpty)
    }

    /// Without an id the identifier is the time it was posted; it never takes a reminder's.
    @Test func anUnnamedNotificationIsNamedByItsTime() async throws {
        let world = World(authorization: .authorized, policy: Self.notifying(NotificationRequest(body: .plain("Hi"))))
        let outcome = await world.engine.handle(.backgroundRefresh)
        #expect(outcome.notificationsPosted.map(\.id) == ["permit.notify.\(Int64(start.timeIntervalSince1970))"])
        #expect(outcome.notificationsPosted.first?.title == nil)
    }

    /// A guardrail that voids the decision's prompt voids its notification too, as its `remember`.
    @Test func aVoidedDecisionPostsNothing() async {
        let world = World(authorization: .notDetermined, policy: Self.notifying(action: .softPrompt(softPrompt)))
        world.device.isInForeground = false
        let outcome = await world.engine.handle(.backgroundRefresh)
        #expect(outcome.decision.action == .none && outcome.decision.notify == nil)
        #expect(outcome.notificationsPosted.isEmpty && world.device.posted.isEmpty)
    }

    /// With the alert setting off the texts are not handed over, as for a reminder.
    @Test func noTextsWhileTheAlertSettingHidesContent() async throws {
        let world = World(authorization: .authorized, policy: Self.notifying())
        try world.device.changeInSettings(settings: [.alert: .disabled, .lockScreen: .disabled, .notificationCenter: .disabled])
        let outcome = await world.engine.handle(.backgroundRefresh)
        let posted = try #require(outcome.notificationsPosted.first)
        #expect(posted.title == nil && posted.body == nil && posted.sound)
        #expect(world.device.posted.map(\.delivery) == [PostedNotification.Delivery.none])
        #expect(world.device.posted.map(\.playedSound) == [true])
    }
}

/// What the simulated iPhone does with a posted notification (docs/platform.md N-04).
@Suite struct PostedNotificationTests {
    static let note = ScheduledReminder(id: "permit.notify.x", fireDate: start, title: "T", body: "B", interruptionLevel: .active)
    static let version = OSVersion(major: 16)

    /// Judged by the status, whatever the settings say.
    @Test(arguments: [PermissionStatus.notDetermined, .denied, .unknown])
    func notAuthorizedDeliversNothing(status: PermissionStatus) {
        let settings = NotificationSettings.typical(for: .authorized, on: Self.version)
        let fate = PostedNotification.delivered(Self.note, status: status, settings: settings)
        #expect(fate.delivery == .none && !fate.playedSound)
    }

    @Test func provisionalIsQuiet() {
        let fate = PostedNotification.delivered(
            Self.note, status: .provisional, settings: .typical(for: .provisional, on: Self.version))
        #expect(fate.delivery == .quiet && !fate.playedSound)
    }

    @Test(arguments: [PermissionStatus.authorized, .ephemeral])
    func authorizedShowsABanner(status: PermissionStatus) {
        let fate = PostedNotification.delivered(Self.note, status: status, settings: .typical(for: status, on: Self.version))
        #expect(fate.delivery == .banner && fate.playedSound)
    }

    @Test func alertOffIsQuietWhereNotificationCenterShowsIt() {
        var settings = NotificationSettings.typical(for: .authorized, on: Self.version)
        settings.alert = .disabled
        settings.sound = .disabled
        let fate = PostedNotification.delivered(Self.note, status: .authorized, settings: settings)
        #expect(fate.delivery == .quiet && !fate.playedSound)
    }

    @Test func passiveIsQuietAndSilent() {
        let passive = ScheduledReminder(id: "p", fireDate: start, body: "B", interruptionLevel: .passive)
        let fate = PostedNotification.delivered(
            passive, status: .authorized, settings: .typical(for: .authorized, on: Self.version))
        #expect(fate.delivery == .quiet && !fate.playedSound)
    }
}

#if canImport(UserNotifications) && canImport(UIKit)
import UIKit
import UserNotifications

// ActivityKit is iPhone and iPad only: not on Mac Catalyst, where it may still be importable.
#if canImport(ActivityKit) && os(iOS) && !targetEnvironment(macCatalyst)
import ActivityKit
#endif

/// The engine's window on the real `UNUserNotificationCenter` (iOS 15+, the package's floor;
/// newer API is used behind `#available`).
///
/// A thin shim: every mapping decision lives in cross-platform code (`AppleMapping`,
/// `PermissionStatus.requestShowsDialog`) that is tested on Linux. This file only moves raw
/// values across and cannot be built or tested off Apple platforms.
///
/// The answer to a dialog arrives after the user taps; the adapter hands it to `onAnswer`,
/// where the host sends `system_prompt_answered` to the engine.
///
/// Each requirement is `nonisolated(nonsending)`, as `NotificationCenterClient` declares it: it
/// runs on the caller's actor (the engine's) up to its first suspension, like the simulated
/// device and any other client, rather than hopping to the global executor first.
///
/// Extension-safe: nothing here reaches `UIApplication.shared`, which app extensions cannot
/// call (docs/platform.md, "App extensions"). Whether the app is in the foreground comes from
/// `isAppActive`; only the convenience initialiser that reads it from `UIApplication.shared` is
/// unavailable to extensions.
public final class UserNotificationCenterClient: NotificationCenterClient {
    private let onAnswer: @Sendable (Bool) -> Void
    private let isAppActive: @MainActor @Sendable () -> Bool

    /// - Parameters:
    ///   - isAppActive: whether the app is in the foreground, so that a dialog can appear
    ///     (`UIApplication.shared.applicationState == .active` in an app; an extension, which
    ///     never shows the dialog, passes `{ false }`).
    ///   - onAnswer: called with `granted` when the user answers a dialog this client put on
    ///     screen. Send `.systemPromptAnswered(granted:)` to the engine from it.
    public init(isAppActive: @escaping @MainActor @Sendable () -> Bool, onAnswer: @escaping @Sendable (Bool) -> Void) {
        self.isAppActive = isAppActive
        self.onAnswer = onAnswer
    }

    /// A client that reads whether the app is active from `UIApplication.shared`, which an app
    /// extension cannot reach: there, use `init(isAppActive:onAnswer:)`.
    @available(iOSApplicationExtension, unavailable)
    @available(macCatalystApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    public convenience init(onAnswer: @escaping @Sendable (Bool) -> Void) {
        self.init(isAppActive: { UIApplication.shared.applicationState == .active }, onAnswer: onAnswer)
    }

    /// Reads `UNUserNotificationCenter`'s settings.
    public nonisolated(nonsending) func readSettings() async -> NotificationSnapshot {
        let raw = await UNUserNotificationCenter.current().notificationSettings()
        let status = AppleMapping.status(fromAuthorizationStatus: raw.authorizationStatus.rawValue) ?? .unknown
        let settings = AppleMapping.settings(
            alert: raw.alertSetting.rawValue, sound: raw.soundSetting.rawValue,
            badge: raw.badgeSetting.rawValue, lockScreen: raw.lockScreenSetting.rawValue,
            notificationCenter: raw.notificationCenterSetting.rawValue, carPlay: raw.carPlaySetting.rawValue,
            criticalAlert: raw.criticalAlertSetting.rawValue, timeSensitive: Self.timeSensitive(of: raw),
            scheduledDelivery: Self.scheduledDelivery(of: raw), liveActivities: Self.liveActivitiesEnabled())
        return NotificationSnapshot(authorization: .status(status), settings: settings)
    }

    /// The app's Live Activities switch: `ActivityAuthorizationInfo().areActivitiesEnabled`
    /// (iOS 16.1+); `nil` (`not_supported`) before 16.1 and where ActivityKit does not exist
    /// (docs/platform.md LA-01).
    private static func liveActivitiesEnabled() -> Bool? {
        #if canImport(ActivityKit) && os(iOS) && !targetEnvironment(macCatalyst)
        if #available(iOS 16.1, *) { return ActivityAuthorizationInfo().areActivitiesEnabled }
        #endif
        return nil
    }

    /// `timeSensitiveSetting` (iOS 15, the floor); the simulated device reads `nil` below 15.
    private static func timeSensitive(of raw: UNNotificationSettings) -> Int? {
        raw.timeSensitiveSetting.rawValue
    }

    /// `scheduledDeliverySetting` (iOS 15, the floor); the simulated device reads `nil` below 15.
    private static func scheduledDelivery(of raw: UNNotificationSettings) -> Int? {
        raw.scheduledDeliverySetting.rawValue
    }

    /// The URL string a settings prompt's deep link opens. The engine's `deep-link-fallback`
    /// guardrail already turned a notification-settings link into the app's Settings page below
    /// iOS 15.4 (docs/platform.md D-01); here only the API that names it differs: the Swift
    /// property from iOS 16, the constant from 15.4.
    @MainActor
    public static func settingsURLString(for link: DeepLink) -> String {
        guard link == .notificationSettings else { return UIApplication.openSettingsURLString }
        if #available(iOS 16.0, *) { return UIApplication.openNotificationSettingsURLString }
        if #available(iOS 15.4, *) { return UIApplicationOpenNotificationSettingsURLString }
        return UIApplication.openSettingsURLString
    }

    /// Asks iOS; when no dialog can appear (in the background, or after an answer), returns
    /// the answer at once.
    public nonisolated(nonsending) func requestAuthorization(options: [AuthorizationOption]) async -> AuthorizationRequestResult {
        let before = await readSettings().status(legacyRegistered: false)
        let isAppActive = self.isAppActive
        let active = await MainActor.run { isAppActive() }
        let unOptions = UNAuthorizationOptions(rawValue: AppleMapping.authorizationOptionsRawValue(options))
        guard active, before.requestShowsDialog(options: options, provisionalSupported: true) else {
            let center = UNUserNotificationCenter.current()
            let granted = (try? await center.requestAuthorization(options: unOptions)) ?? false
            return .answeredWithoutDialog(granted: granted)
        }
        let onAnswer = self.onAnswer
        Task {
            let center = UNUserNotificationCenter.current()
            let granted = (try? await center.requestAuthorization(options: unOptions)) ?? false
            onAnswer(granted)
        }
        return .dialogShown
    }

    /// iOS 8–9 registration cannot run on this package's iOS 13 floor; the legacy flow is
    /// modelled by `SimulatedDevice` and the core. Here it forwards to the modern request.
    public nonisolated(nonsending) func registerLegacy(types: LegacyNotificationTypes) async -> AuthorizationRequestResult {
        var options: [AuthorizationOption] = []
        if types.contains(.alert) { options.append(.alert) }
        if types.contains(.sound) { options.append(.sound) }
        if types.contains(.badge) { options.append(.badge) }
        return await requestAuthorization(options: options)
    }

    /// The pending local notifications, read back as they were scheduled (`AppleNotificationContent`).
    public nonisolated(nonsending) func pendingReminders() async -> [ScheduledReminder] {
        let requests = await UNUserNotificationCenter.current().pendingNotificationRequests()
        return requests.compactMap { request -> ScheduledReminder? in
            guard let trigger = request.trigger as? UNCalendarNotificationTrigger,
                let date = trigger.nextTriggerDate()
            else { return nil }
            let content = request.content
            let fields = AppleNotificationContent(
                title: content.title, body: content.body, categoryIdentifier: content.categoryIdentifier,
                hasSound: content.sound != nil, badge: content.badge?.intValue,
                interruptionLevelRawValue: Self.interruptionLevelRawValue(of: content))
            return fields.reminder(id: request.identifier, fireDate: date)
        }.sorted { $0.fireDate < $1.fireDate }
    }

    /// `interruptionLevel` (iOS 15, the floor); the simulated device has no level below 15.
    private static func interruptionLevelRawValue(of content: UNNotificationContent) -> UInt? {
        content.interruptionLevel.rawValue
    }

    /// Adds local notification requests, their content as `AppleNotificationContent` says.
    public nonisolated(nonsending) func schedule(_ reminders: [ScheduledReminder]) async {
        let center = UNUserNotificationCenter.current()
        for reminder in reminders {
            let parts = AppleMapping.triggerComponents(for: reminder.fireDate, in: .current)
            let trigger = UNCalendarNotificationTrigger(dateMatching: parts, repeats: false)
            try? await center.add(
                UNNotificationRequest(identifier: reminder.id, content: Self.content(of: reminder), trigger: trigger))
        }
    }

    /// Posts a notification for delivery now: a request with a nil trigger (docs/platform.md N-04).
    public nonisolated(nonsending) func post(_ notification: ScheduledReminder) async {
        let request = UNNotificationRequest(identifier: notification.id, content: Self.content(of: notification), trigger: nil)
        try? await UNUserNotificationCenter.current().add(request)
    }

    /// The content `AppleNotificationContent` says for `reminder`.
    private static func content(of reminder: ScheduledReminder) -> UNMutableNotificationContent {
        let fields = AppleNotificationContent(scheduling: reminder)
        let content = UNMutableNotificationContent()
        content.title = fields.title
        content.body = fields.body
        content.categoryIdentifier = fields.categoryIdentifier
        if fields.hasSound { content.sound = .default }
        if let badge = fields.badge { content.badge = NSNumber(value: badge) }
        if let raw = fields.interruptionLevelRawValue, let level = UNNotificationInterruptionLevel(rawValue: raw) {
            content.interruptionLevel = level
        }
        return content
    }

    /// Removes pending requests the policy no longer wants.
    public nonisolated(nonsending) func removePendingReminders(ids: [String]) async {
        UNUserNotificationCenter.current().removePendingNotificationRequests(withIdentifiers: ids)
    }
}
#endif

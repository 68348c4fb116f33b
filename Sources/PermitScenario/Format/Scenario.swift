import Foundation
import PermitCore
import PermitInput
import PermitSimulator

/// One scenario file: a device, a starting state and the steps a user takes (docs/reference/scenarios.md#scenarios).
public struct Scenario: Sendable {
    /// The scenario's `name` (the file name when it has none).
    public var name: String
    /// The file the scenario came from.
    public var file: String
    /// The policy named by the file (resolved against the file's directory), if any.
    public var policy: URL?
    /// Where `policy` is written, for errors about it.
    public var policyLocation: SourceLocation?
    /// The simulated device.
    public var device: Device
    /// `ctx.user.bucket` (`user.bucket`).
    public var userBucket: Int
    /// The matrix case this scenario is (`os=9.3, locale=de`), or nil for a file without
    /// `matrix:`; it keeps the cases' snapshots apart.
    public var matrixCase: String?
    /// Pinned experiment arms (`user.arms`), checked against the policy when the scenario runs.
    public var arms: [String: String] = [:]
    /// Where each pinned arm is written, for errors about it.
    public var armLocations: [String: SourceLocation] = [:]
    /// Overrides of the policy's params, as a host would set them.
    public var params: [String: PolicyValue]
    /// Where `params` is written, for errors about them.
    public var paramsLocation: SourceLocation?
    /// The engine's daily prompt cap.
    public var maxPromptsPerDay: Int
    /// The clock at step 1.
    public var start: Date
    /// The device and ledger before step 1.
    public var initial: Initial
    /// The steps, in order.
    public var steps: [Step]
    /// Public keys (`trusted_keys`) that `policy_update` bundles must be signed by; none means
    /// unsigned bundles are accepted, as in development.
    public var trustedKeys: [URL] = []
    /// Where `trusted_keys` is written, for errors about it.
    public var trustedKeysLocation: SourceLocation?
    /// `only: true`: while any scenario in a run says so, the others are left out — a focus
    /// for the author's inner loop that `--ci` refuses, so it cannot slip into a green build.
    public var only = false
    /// Where `only` is written, so `--ci` can point at it.
    public var onlyLocation: SourceLocation?
    /// `skip: "why"`: the scenario is parsed (so a skipped file still cannot rot into bad
    /// YAML) but not run, and is counted and shown with its reason.
    public var skipReason: String?

    /// `device:`: what the simulated iPhone is.
    public struct Device: Sendable {
        /// The iOS version.
        public var version: OSVersion
        /// The locale texts are picked for.
        public var locale: String
        /// The time zone `prompts_today` and reminders follow.
        public var timeZone: TimeZone
        /// Whether the app is an App Clip.
        public var isAppClip: Bool
        /// Reads after a change in Settings that still report the old value.
        public var staleReads: Int
        /// The notification entitlements the app is signed with.
        public var entitlements: Set<NotificationEntitlement> = []
        /// The App Clip asks for ephemeral notifications (`NSAppClipRequestEphemeralUserNotification`).
        public var appClipEphemeral = false
        /// The App Clip card's notification switch (on by default); off, no ephemeral grant.
        public var appClipCardNotifications = true
        /// The user has Scheduled Summary on (iOS 15+): the dialog offers "Add to Scheduled Summary".
        public var scheduledSummary = false
        /// Which notifications iOS keeps past 64 pending; `nil`: what the evidence says for the version.
        public var pendingOverflow: PendingOverflow?
        /// What leaving the app does to the system dialog on screen.
        public var dialogOnBackground: DialogOnBackground = .observed
        /// The app offers Live Activities (`NSSupportsLiveActivities` in its Info.plist): on
        /// iOS 16.1+ their switch starts on (`live_activities: enabled`).
        public var liveActivities = false
        /// The app's version at the start (`app_version`), which `app_update` steps change: the
        /// engine's `EngineConfiguration.appVersion`. `nil`: the scenario does not say.
        public var appVersion: String?
        /// The app's name (`app_name`): the engine's `EngineConfiguration.appName`, which
        /// policies read as `ctx.app.name`. `nil`: the scenario does not say.
        public var appName: String?

        /// The platform the engine and device run.
        public var platform: Platform { Platform(version: version, isAppClip: isAppClip) }
    }

    /// The device and app before step 1.
    public struct Initial: Sendable {
        /// The device's truth (also on iOS 8–9); `nil` means the device default.
        public var authorization: PermissionStatus?
        /// Individual settings on top of what iOS shows for the authorization.
        public var settings: [NotificationSettings.Setting: SettingValue]
        /// The ledger the app starts with (a returning user).
        public var ledger: Ledger
        /// Where `initial:` is written, for errors about it.
        public var location: SourceLocation?
    }

    /// One step of the story.
    public struct Step: Sendable {
        /// 1-based.
        public var number: Int
        /// Where the step is written.
        public var location: SourceLocation
        /// Seconds the clock moves before the action.
        public var after: Int64
        /// What the step does.
        public var action: Action
        /// What it expects.
        public var expectations: Expectations
    }

    /// What a step does: one thing.
    public enum Action: Sendable, Hashable {
        /// The app sends an event.
        case event(AppEvent)
        /// The user answers what is on screen.
        case answer(Answer)
        /// The user changes the app's notification settings in Settings.
        case settings(authorization: PermissionStatus?, settings: [NotificationSettings.Setting: SettingValue])
        /// The app is deleted and installed again; iOS may remember the old answer (`nil`: as
        /// the version does, docs/platform.md K-01), and the app's Keychain items (its durable
        /// ledger part) survive unless told otherwise. `uninstalledFor`: how many seconds of the
        /// step's `after` the app was deleted (`nil`: all of them), which iOS 8–9 counts.
        case reinstall(systemRemembers: Bool?, keychainSurvives: Bool, uninstalledFor: Int64?)
        /// The user taps "Keep" on a quiet (provisional) notification and picks how it is
        /// delivered; the app is not told, and reads the new status at its next read.
        case provisionalKeep(ProvisionalKeep)
        /// Only `after`: time passes (reminders fire, days roll over).
        case wait
        /// A policy bundle arrives and is installed between events, as in a rollout.
        case policyUpdate(URL)
        /// Another SDK (or the app outside Permit) calls `requestAuthorization`; when the dialog
        /// can show, the user answers it so.
        case externalRequest(allow: Bool)
        /// The device changes time zone; the app hears `significant_time_change`.
        case timeZone(TimeZone)
        /// The user taps the app's link in Settings › Notifications; the app hears
        /// `notification_settings_opened`.
        case openSettingsLink
        /// The app's process ends (the user swipes it away, or iOS reclaims it): what it held
        /// in memory and on screen is gone; the next `app_launch` is a cold start.
        case terminate
        /// The app is updated to this version: iOS ends its process, and the next `app_launch`
        /// runs the new version, whose first process sees `ctx.app.previous_version`.
        case appUpdate(String)
    }

    /// An answer to whatever is on screen.
    public enum Answer: String, Sendable, CaseIterable {
        /// A soft prompt's (`accept`, `decline`, `dismiss`), a settings prompt's (`open`, `cancel`,
        /// `dismiss`), an information page's (`ok`, `dismiss`, and `open` when it has that button)
        /// or the system dialog's (`allow`, `deny`).
        case accept, decline, dismiss, open, cancel, allow, deny, ok
        /// The web link on a prompt, row or page (`link`): the host opens the page, and what
        /// the link is on stays on screen.
        case link
        /// The system dialog's "Add to Scheduled Summary" (`device.scheduled_summary`, iOS 15+).
        case addToSummary = "add_to_summary"
    }

    /// What a step expects (docs/reference/scenarios.md#expectations). `nil` fields are not checked.
    public struct Expectations: Sendable {
        /// `expect`: the decision.
        public var decision: ExpectedDecision?
        /// `expect_status`.
        public var status: PermissionStatus?
        /// `expect_warning`: the guardrails expected to fire.
        public var warnings: [String]?
        /// `expect_error`.
        public var error: ExpectedError?
        /// `expect_dialog`: whether the system dialog appeared.
        public var dialog: Bool?
        /// `expect_pending`: reminders waiting.
        public var pending: Int?
        /// `expect_pending` as a list: their fire dates on the device's wall clock, soonest first.
        public var pendingLocalTimes: [String]? = nil
        /// `expect_remote_registration`: `true` when the host is told to register for remote
        /// notifications, `false` when told neither to register nor to unregister, `unregister`
        /// when told to unregister.
        public var remoteRegistration: ExpectedRemoteRegistration? = nil
        /// About the reminders this step scheduled.
        public var reminders: ExpectedReminders?
        /// `expect_notified`: exactly the notifications this step posted (`notify`), in order.
        public var notified: [ExpectedNotification]? = nil
        /// `expect_ledger`: dotted paths and their values (`nil`: absent).
        public var ledger: [(path: String, value: PolicyValue?, location: SourceLocation)]
        /// `expect_update` of a `policy_update` step.
        public var update: ExpectedUpdate? = nil
        /// `expect_settings`: the device's real settings (not the app's last read) after the step.
        public var settings: [NotificationSettings.Setting: SettingValue] = [:]
        /// `expect_trace`: what the policy logged during the step, in order (`[]`: nothing).
        public var trace: [TextMatch]? = nil
        /// `expect.reason` as a piece or `/pattern/`; kept apart from the exact decision fields.
        public var reason: TextMatch? = nil
        /// `expect_followup`: the decision that followed an answer iOS gave at once (a request
        /// answered without a dialog, heard as `system_prompt_answered`), in `expect`'s form.
        public var followUp: ExpectedDecision? = nil
        /// `expect_followup.reason`, as `reason` is to `expect`.
        public var followUpReason: TextMatch? = nil
        /// `expect_screen`: what the app has on screen after the step (`inform_page`, `label`,
        /// `nothing`, ...).
        public var screen: String? = nil

        /// Whether the step expects nothing.
        public var isEmpty: Bool {
            decision == nil && status == nil && warnings == nil && error == nil && dialog == nil && pending == nil
                && reminders == nil && ledger.isEmpty && update == nil && settings.isEmpty && pendingLocalTimes == nil
                && remoteRegistration == nil && trace == nil && reason == nil && followUp == nil && followUpReason == nil && screen == nil
        }
    }

    /// `expect: soft_prompt`, or a table matched field by field (texts after localisation).
    public enum ExpectedDecision: Sendable, Hashable {
        /// Only the action (`expect: soft_prompt`).
        case action(String)
        /// Fields matched one by one.
        case fields([String: PolicyValue])
    }

    /// `expect_update: installed`, `refused`, or a piece of the refusal (`refused` alone: any).
    public enum ExpectedUpdate: Sendable, Hashable {
        /// The bundle installed.
        case installed
        /// The bundle was refused; with a text, the refusal contains it.
        case refused(String?)
    }

    /// `expect_reminders: { count: 3, alert: false }`: how many reminders the step scheduled,
    /// and whether they show an alert (`false`: badge and sound only, as when alerts are off).
    public struct ExpectedReminders: Sendable, Hashable {
        /// How many reminders.
        public var count: Int?
        /// Whether they show an alert.
        public var alert: Bool?
        /// Their fire dates as `yyyy-MM-dd HH:mm` on the device's wall clock, soonest first.
        public var localTimes: [String]?
        /// The interruption level every one carries; `.some(nil)` (`none`): no level set.
        public var interruptionLevel: InterruptionLevel?? = nil
        /// The list form: exactly these reminders, soonest first, each matched field by field.
        public var each: [ExpectedReminder]? = nil
    }

    /// One reminder of the list form of `expect_reminders`; `nil` fields are not checked.
    public struct ExpectedReminder: Sendable, Hashable {
        /// Where it is written, for failures.
        public var line: Int
        /// The fire date as `yyyy-MM-dd HH:mm` on the device's wall clock.
        public var at: String?
        /// The title after localisation.
        public var title: String?
        /// The body after localisation.
        public var body: String?
        /// `true`: it shows an alert; `false`: badge and sound only.
        public var alert: Bool?
        /// The identifier it is scheduled under.
        public var id: String?
    }

    /// One notification of `expect_notified`; `nil` fields are not checked.
    public struct ExpectedNotification: Sendable, Hashable {
        /// Where it is written, for failures.
        public var line: Int
        /// The title after localisation.
        public var title: String?
        /// The body after localisation.
        public var body: String?
        /// The identifier it is posted under (`permit.notify.<id>`).
        public var id: String?
        /// How the device delivered it.
        public var delivered: PostedNotification.Delivery?
        /// Whether it played a sound.
        public var sound: Bool?
    }

    /// `expect_error: true`, a piece of the message, or a `/pattern/`.
    public enum ExpectedError: Sendable, Hashable {
        /// Any policy error.
        case any
        /// An error whose message matches.
        case matching(TextMatch)
    }
}

/// What `expect_remote_registration` expects the host to be told.
public enum ExpectedRemoteRegistration: Sendable, Hashable {
    /// `true`: register now.
    case register
    /// `false`: neither register nor unregister.
    case nothing
    /// `unregister`: unregister now.
    case unregister
}

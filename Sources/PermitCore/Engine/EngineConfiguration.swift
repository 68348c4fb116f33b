import Foundation

/// How the host sets up the engine. Every field has a sensible default.
public struct EngineConfiguration: Sendable {
    /// The `prompt-cap` guardrail: soft prompts, settings prompts and system dialogs per local day.
    public var maxPromptsPerDay: Int
    /// BCP 47 locale for `ctx.locale` and text localisation.
    public var locale: String
    /// The device's time zone: local days for `prompts_today`, reminder fire dates.
    public var timeZone: TimeZone
    /// 0–99, stable per install (`ctx.user.bucket`).
    public var userBucket: Int
    /// Overrides of the policy's params.
    public var params: [String: PolicyValue]
    /// After `app_foreground`, re-read the status again after these delays while it has not
    /// changed: iOS can report the old status on the first read after a return from Settings.
    /// Empty disables the re-checks (scenarios drive reads explicitly). In seconds, which
    /// every iOS the library runs on has (`Duration` needs iOS 16).
    public var foregroundRecheckDelays: [TimeInterval]

    /// `foregroundRecheckDelays` as `Duration`s (iOS 16+).
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public var foregroundRechecks: [Duration] {
        get { foregroundRecheckDelays.map { .milliseconds(Int64(($0 * 1_000).rounded())) } }
        set { foregroundRecheckDelays = newValue.map(\.timeInterval) }
    }
    /// The install's id, from which its experiment arms are drawn (docs/reference/policy.md#experiments).
    /// Pass your analytics' install id so a backend can recompute the arms; `nil` keeps the one
    /// in the ledger, or draws a random one at the first event and keeps it there.
    public var installID: String?
    /// Pinned arms, by experiment (`first_ask: quiet`): QA builds and tests put a device in an
    /// arm. A pin the policy's experiments do not have is ignored.
    public var arms: [String: String]
    /// The app's version as its users see it (`CFBundleShortVersionString`, "2.14.1"):
    /// `ctx.app.version`. The engine keeps the last one it saw in the ledger, so the first
    /// process after an update knows the version before (`ctx.app.previous_version`). `nil`: the
    /// host did not say (`ctx.app.version` is nil, and no update is noticed).
    public var appVersion: String?
    /// The app's name as its users see it (`CFBundleDisplayName`, which builders of an app may
    /// change): `ctx.app.name`, which a policy passes to `permit.copy` for the texts that name
    /// the app. `nil`: the host did not say (`ctx.app.name` is nil).
    public var appName: String?

    /// The host's settings; the defaults suit an app that sends every event and re-checks after
    /// a return from Settings (after half a second, and after 2 seconds).
    public init(
        maxPromptsPerDay: Int = 3,
        locale: String = "en",
        timeZone: TimeZone = .current,
        userBucket: Int = 0,
        params: [String: PolicyValue] = [:],
        foregroundRecheckDelays: [TimeInterval] = [0.5, 2],
        installID: String? = nil,
        arms: [String: String] = [:],
        appVersion: String? = nil,
        appName: String? = nil
    ) {
        self.appVersion = appVersion
        self.appName = appName
        self.maxPromptsPerDay = maxPromptsPerDay
        self.locale = locale
        self.timeZone = timeZone
        self.userBucket = min(99, max(0, userBucket))
        self.params = params
        self.foregroundRecheckDelays = foregroundRecheckDelays.map { max(0, $0) }
        self.installID = installID
        self.arms = arms
    }

    /// The same settings with the re-check delays as `Duration`s (iOS 16+).
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public init(
        maxPromptsPerDay: Int = 3,
        locale: String = "en",
        timeZone: TimeZone = .current,
        userBucket: Int = 0,
        params: [String: PolicyValue] = [:],
        foregroundRechecks: [Duration],
        installID: String? = nil,
        arms: [String: String] = [:],
        appVersion: String? = nil,
        appName: String? = nil
    ) {
        self.init(
            maxPromptsPerDay: maxPromptsPerDay, locale: locale, timeZone: timeZone, userBucket: userBucket, params: params,
            foregroundRecheckDelays: foregroundRechecks.map(\.timeInterval), installID: installID, arms: arms,
            appVersion: appVersion, appName: appName)
    }
}

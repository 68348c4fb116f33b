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
    /// Empty disables the re-checks (scenarios drive reads explicitly).
    public var foregroundRechecks: [Duration]

    /// The host's settings; the defaults suit an app that sends every event and re-checks after
    /// a return from Settings.
    public init(
        maxPromptsPerDay: Int = 3,
        locale: String = "en",
        timeZone: TimeZone = .current,
        userBucket: Int = 0,
        params: [String: PolicyValue] = [:],
        foregroundRechecks: [Duration] = [.milliseconds(500), .seconds(2)]
    ) {
        self.maxPromptsPerDay = maxPromptsPerDay
        self.locale = locale
        self.timeZone = timeZone
        self.userBucket = min(99, max(0, userBucket))
        self.params = params
        self.foregroundRechecks = foregroundRechecks
    }
}

import Foundation
import PermitCore
import PermitInput

/// How the simulated users behave (docs/simulate.md): who they are (iOS version, locale), how
/// often they use the app, how they answer each prompt, how prompts wear them out, and whether
/// they come back after deleting the app.
public struct UserModel: Sendable, Hashable {
    /// The model's name, for reports.
    public var name: String
    /// Share of users per iOS version.
    public var osVersions: Weighted<OSVersion>
    /// Share of users per BCP 47 locale.
    public var locales: Weighted<String>
    /// Sessions (the app opened, from a cold launch or from the background) per day.
    public var sessionsPerDay: CountDistribution
    /// Feature opens per session.
    public var featureOpensPerSession: CountDistribution
    /// Which feature a feature open is.
    public var features: Weighted<String>
    /// Answers to the soft prompt: accept, dismiss; the rest declines.
    public var softAccept: Double
    /// The share that dismiss the soft prompt without a choice.
    public var softDismiss: Double
    /// The system dialog: allow when it comes cold, and right after the user accepted a soft prompt.
    public var allowCold: Double
    /// The chance to allow the dialog right after accepting a soft prompt.
    public var allowAfterSoftAccept: Double
    /// The settings prompt: open Settings, then (once there) switch notifications on.
    public var settingsOpen: Double
    /// The chance to switch notifications on, once in Settings.
    public var settingsEnable: Double
    /// `inline.act`: the chance that a user who sees an inline row (`presentation = "inline"`)
    /// acts on it (accepts, opens Settings); the rest scroll past. A row is seen, not answered,
    /// so it annoys no one (`annoyance` counts prompts only). The default is an assumption.
    public var inlineAct = UserModel.defaultInlineAct
    /// What a user granted quiet (provisional) delivery does with it, from the "Keep" / "Turn
    /// Off" choice iOS offers on a quiet notification: turn notifications off (denied), or Keep
    /// › Deliver Immediately (authorized, still without alerts, sounds or badges:
    /// docs/platform.md P-02); the rest leave it quiet. The model's users have Scheduled
    /// Summary off, so Keep offers no "Deliver in Scheduled Summary".
    public var quietTurnOff: Double
    /// The chance that a quiet user taps Keep › Deliver Immediately.
    public var quietDeliverImmediately: Double
    /// The file wrote `deliver_prominently`, a choice iOS no longer offers, read as
    /// `deliver_immediately` (the run warns).
    public var readsDeliverProminently = false
    /// Days from the end of the day the user became provisional to the end of the day they
    /// choose (0: that same day), drawn once per install.
    public var quietDecidesAfterDays: CountDistribution
    /// Each prompt a user has seen takes this much off every later "yes" chance.
    public var denyIncreasePerPrompt: Double
    /// After the n-th prompt, the user deletes the app with chance n × this.
    public var uninstallPerPrompt: Double
    /// After deleting the app: the chance to install it again, after how many days, and the
    /// chance that iOS still remembers the old answer.
    public var reinstallChance: Double
    /// Days until the reinstall.
    public var reinstallAfterDays: CountDistribution
    /// The chance that iOS still remembers the old answer after a reinstall.
    public var reinstallSystemRemembers: Double
    /// The engine's `max_prompts_per_day`.
    public var maxPromptsPerDay: Int
    /// Midnight (UTC) of day 1.
    public var start: Date
    /// `app`: what every simulated user's app is, as a scenario's `device` says it (an App
    /// Clip, its ephemeral key, the notification entitlements it is signed with).
    public var app = App()
    /// `events`: the app's own events users send in their sessions (to the policies that declare them).
    public var appEvents: [ModelEvent] = []
    /// `travel`: how some users change time zone; `nil`: nobody travels.
    public var travel: Travel?
    /// `home_zones`: the time zones users live in, a share each (drawn once per user, with who
    /// they are); `nil`: everybody lives on UTC. Sessions fall between 08:00 and 22:00 on the
    /// home zone's clock, its daylight-saving days included, and trips come back to it.
    public var homeZones: Weighted<TimeZone>?
    /// `cold_launch_share`: the chance that a session is a cold launch (a new process of the
    /// app: `app_launch`, and the policy starts over with a fresh state), not a return from the
    /// background. A user's first session, and the first after a reinstall, always is.
    public var coldLaunchShare = UserModel.defaultColdLaunchShare
    /// `session_hours`: the hours of the device's local clock sessions start in, `[start, end)`
    /// (0–24). The default, 08:00–22:00, never opens the app at night, so a policy's quiet hours
    /// are never met; `[0, 24]` spreads sessions over the whole day.
    public var sessionHours = UserModel.defaultSessionHours
    /// `arms`: answer figures of their own for the users in an experiment's arm (`ArmFigures`);
    /// empty: every arm answers with the model's figures.
    public var armFigures = ArmFigures.none

    /// Sessions between 08:00 and 22:00: an assumption, and what every model without the key gets.
    public static let defaultSessionHours = 8..<22
    /// The chances that are not known exactly, each with its range: the ones the file gives a
    /// range (`accept: 0.45 [0.30, 0.60]`) and every assumption with its default range
    /// (`UserModel+Uncertainty.swift`). A run simulates at the values; `--sensitivity` draws.
    public var uncertainFigures: [UncertainFigure] = []
    /// The optional sections about behaviour the file leaves out (`provisional`, `annoyance`,
    /// `reinstall`): each is simulated at a fixed default (quiet users stay quiet, prompts cost
    /// nothing, nobody comes back) that no range covers, so a report says a verdict assumes it.
    public var leftOutSections: [String] = []

    /// The sections `leftOutSections` can name, in the order reports list them.
    public static let behaviourSections = ["provisional", "annoyance", "reinstall"]

    /// The `cold_launch_share` of a model that gives none: an assumption (docs/simulate.md).
    public static let defaultColdLaunchShare = 0.6

    /// The app the population runs.
    public struct App: Sendable, Hashable {
        /// The app is an App Clip.
        public var isAppClip = false
        /// The App Clip's Info.plist has `NSAppClipRequestEphemeralUserNotification`.
        public var ephemeralNotifications = false
        /// The notification entitlements the app is signed with.
        public var entitlements: Set<NotificationEntitlement> = []
    }

    /// `inline.act` when the model says nothing: an **assumption** (no published figure found
    /// for how often users tap a settings row or an in-screen "turn on" button).
    public static let defaultInlineAct = 0.05

    /// The `start` of a model that names none: a Monday, so weekday effects line up across runs.
    public static let defaultStart = Date(timeIntervalSince1970: 1_767_571_200)  // 2026-01-05T00:00:00Z

    static let topLevelKeys = [
        "name", "os_versions", "locales", "sessions_per_day", "feature_opens_per_session", "features",
        "soft_prompt", "system_dialog", "settings_prompt", "provisional", "annoyance", "reinstall", "max_prompts_per_day", "start",
        "app", "events", "travel", "home_zones", "inline", "cold_launch_share", "session_hours",
        "arms",
    ]
    static let required = [
        "os_versions", "sessions_per_day", "feature_opens_per_session", "features", "soft_prompt", "system_dialog",
        "settings_prompt",
    ]

    /// Reads a model file; every mistake is an `InputError` naming file, line, column and field.
    public static func load(contentsOf url: URL, displayName: String? = nil) throws(InputError) -> UserModel {
        let name = displayName ?? url.path
        // The scenario files' reader: the same errors for a missing file or a stray byte.
        let text = try InputText.read(url, name: name)
        return try parse(text, file: name)
    }

    /// Parses a model from YAML text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(InputError) -> UserModel {
        let root = try YAMLValue.parse(text, file: file, emptyHint: "start from examples/models/default.yaml")
        let fields = try root.fields(allowed: topLevelKeys)
        for key in required where fields[key] == nil {
            throw InputError(
                "missing \"\(key)\"", at: root.location, field: nil,
                hint: "every model needs \(required.joined(separator: ", ")); see docs/reference/model.md")
        }
        func node(_ key: String) -> YAMLValue { fields[key]! }

        let osVersions = try parseOSVersions(node("os_versions"))
        let locales = try fields["locales"].map(parseLocales) ?? Weighted([(value: "en", share: 1.0)])
        let features = try parseShares(node("features"))
        let soft = try parseSoftPrompt(node("soft_prompt"))
        let dialog = try requiredFields(
            node("system_dialog"), ["allow_cold", "allow_after_soft_accept"],
            example: "{ allow_cold: 0.35, allow_after_soft_accept: 0.85 }")
        let settings = try requiredFields(node("settings_prompt"), ["open", "enable"], example: "{ open: 0.25, enable: 0.6 }")
        let quiet =
            try fields["provisional"].map(parseProvisional)
            ?? (turnOff: 0, immediately: 0, after: CountDistribution.fixed(1), oldKey: false)
        let annoyance = try fields["annoyance"]?.fields(allowed: ["deny_increase_per_prompt", "uninstall_per_prompt"]) ?? [:]
        let reinstall = try fields["reinstall"]?.fields(allowed: ["chance", "after_days", "system_remembers"]) ?? [:]
        let start = try fields["start"]?.date() ?? defaultStart
        let app = try fields["app"].map(parseApp) ?? App()

        var model = UserModel(
            name: try fields["name"]?.string() ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent,
            osVersions: osVersions,
            locales: locales,
            sessionsPerDay: try CountDistribution.parse(node("sessions_per_day")),
            featureOpensPerSession: try CountDistribution.parse(node("feature_opens_per_session")),
            features: features,
            softAccept: soft.accept,
            softDismiss: soft.dismiss,
            allowCold: try dialog["allow_cold"]!.probability(),
            allowAfterSoftAccept: try dialog["allow_after_soft_accept"]!.probability(),
            settingsOpen: try settings["open"]!.probability(),
            settingsEnable: try settings["enable"]!.probability(),
            quietTurnOff: quiet.turnOff,
            quietDeliverImmediately: quiet.immediately,
            quietDecidesAfterDays: quiet.after,
            denyIncreasePerPrompt: try annoyance["deny_increase_per_prompt"]?.probability() ?? 0,
            uninstallPerPrompt: try annoyance["uninstall_per_prompt"]?.probability() ?? 0,
            reinstallChance: try reinstall["chance"]?.probability() ?? 0,
            reinstallAfterDays: try reinstall["after_days"].map { node throws(InputError) in
                try CountDistribution.parse(node)
            } ?? .fixed(1),
            reinstallSystemRemembers: try reinstall["system_remembers"]?.probability() ?? 0,
            maxPromptsPerDay: try fields["max_prompts_per_day"]?.int(in: 1...100) ?? 3,
            start: start,
            app: app)
        model.readsDeliverProminently = quiet.oldKey
        try model.readActivity(fields)
        if let inline = fields["inline"] {
            let inlineFields = try inline.fields(allowed: ["act"])
            model.inlineAct = try inlineFields["act"]?.probability() ?? defaultInlineAct
        }
        model.armFigures = try fields["arms"].map { node throws(InputError) in try ArmFigures.parse(node, base: model) } ?? .none
        try model.readRanges(root)
        model.leftOutSections = behaviourSections.filter { fields[$0] == nil }
        return model
    }

    /// `events`, `travel`, `home_zones` and `cold_launch_share`, all optional.
    private mutating func readActivity(_ fields: [String: YAMLValue]) throws(InputError) {
        let features = self.features.items.map(\.value)
        appEvents = try fields["events"].map { node throws(InputError) in try ModelEvent.parseAll(node, features: features) } ?? []
        travel = try fields["travel"].map(Travel.parse)
        homeZones = try fields["home_zones"].map(Weighted.zones)
        coldLaunchShare = try fields["cold_launch_share"]?.probability() ?? Self.defaultColdLaunchShare
        if let hours = fields["session_hours"] {
            let bounds = try hours.list()
            guard bounds.count == 2 else {
                throw hours.error(
                    "expected [start, end] hours, got a list of \(bounds.count)", hint: "write e.g. [8, 22], or [0, 24] for any time")
            }
            let start = try bounds[0].int(in: 0...23), end = try bounds[1].int(in: 1...24)
            guard start < end else {
                throw hours.error(
                    "the start hour \(start) is not before the end hour \(end)", hint: "write e.g. [8, 22], or [0, 24] for any time")
            }
            sessionHours = start..<end
        }
    }

    /// `app: { app_clip: true, app_clip_ephemeral: true, entitlements: [time_sensitive] }`.
    static func parseApp(_ node: YAMLValue) throws(InputError) -> App {
        let fields = try node.fields(allowed: ["app_clip", "app_clip_ephemeral", "entitlements"])
        var app = App()
        app.isAppClip = try fields["app_clip"]?.bool() ?? false
        app.ephemeralNotifications = try fields["app_clip_ephemeral"]?.bool() ?? false
        if app.ephemeralNotifications, !app.isAppClip {
            throw fields["app_clip_ephemeral"]!.error(
                "app_clip_ephemeral is for App Clips", hint: "add `app_clip: true`, or remove app_clip_ephemeral")
        }
        for item in try fields["entitlements"]?.list() ?? [] {
            app.entitlements.insert(NotificationEntitlement(rawValue: try item.oneOf(NotificationEntitlement.allCases.map(\.rawValue)))!)
        }
        return app
    }

    /// `os_versions`: a share per iOS version.
    static func parseOSVersions(_ node: YAMLValue) throws(InputError) -> Weighted<OSVersion> {
        var pairs: [(OSVersion, Double, YAMLValue)] = []
        for (key, value) in try node.table() {
            let version: OSVersion
            do { version = try OSVersion(parsing: key) } catch { throw node.child(key, value.node).error(error.description) }
            pairs.append((version, try value.probability(), value))
        }
        return try Weighted(pairs, at: node)
    }

    /// Whether `text` has the form of a BCP 47 locale (`en`, `zh-Hans`, `pt-BR`): what a model's
    /// `locales` may name, and so what a fitted record's `locale` may be.
    static func isLocale(_ text: String) -> Bool {
        text.range(of: #"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$"#, options: .regularExpression) != nil
    }

    /// `locales`: a share per BCP 47 locale.
    static func parseLocales(_ node: YAMLValue) throws(InputError) -> Weighted<String> {
        var pairs: [(String, Double, YAMLValue)] = []
        for (key, value) in try node.table() {
            guard isLocale(key) else {
                throw node.child(key, value.node).error(
                    "\"\(key)\" is not a BCP 47 locale", hint: "write e.g. en, de, zh-Hans, pt-BR")
            }
            pairs.append((key, try value.probability(), value))
        }
        return try Weighted(pairs, at: node)
    }

    /// A share per name (`features`).
    static func parseShares(_ node: YAMLValue) throws(InputError) -> Weighted<String> {
        var pairs: [(String, Double, YAMLValue)] = []
        for (key, value) in try node.table() { pairs.append((key, try value.probability(), value)) }
        return try Weighted(pairs, at: node)
    }

    /// `soft_prompt`: accept and dismiss; the rest of the users decline, so the two leave room.
    static func parseSoftPrompt(_ node: YAMLValue) throws(InputError) -> (accept: Double, dismiss: Double) {
        let soft = try node.fields(allowed: ["accept", "dismiss"])
        guard let softAccept = soft["accept"] else {
            throw node.error("missing \"accept\"", hint: "write e.g. { accept: 0.4, dismiss: 0.1 }")
        }
        let accept = try softAccept.probability()
        let dismiss = try soft["dismiss"]?.probability() ?? 0
        guard accept + dismiss <= 1.000_001 else {
            throw node.error(
                "accept (\(accept)) and dismiss (\(dismiss)) add up to more than 1",
                hint: "the rest of the users decline; the two must leave room for it")
        }
        return (accept, dismiss)
    }

    /// `provisional`: keep_quiet, turn_off and deliver_immediately, each required and adding up
    /// to 1 (every quiet user makes exactly one of the choices), and when (`decide_after_days`).
    /// A file written before iOS dropped "Deliver Prominently" says `deliver_prominently`: it is
    /// read as `deliver_immediately`, the choice Keep offers now, and the run warns (`oldKey`).
    static func parseProvisional(
        _ node: YAMLValue
    ) throws(InputError)
        -> (turnOff: Double, immediately: Double, after: CountDistribution, oldKey: Bool)
    {
        let example = "{ keep_quiet: 0.6, turn_off: 0.3, deliver_immediately: 0.1, decide_after_days: { uniform: [1, 7] } }"
        let fields = try node.fields(
            allowed: ["keep_quiet", "turn_off", "deliver_immediately", "deliver_prominently", "decide_after_days"])
        if let old = fields["deliver_prominently"], fields["deliver_immediately"] != nil {
            throw old.error(
                "deliver_prominently and deliver_immediately are one choice written twice",
                hint: "keep deliver_immediately: iOS's Keep no longer offers prominent delivery")
        }
        let oldKey = fields["deliver_prominently"] != nil
        let third = oldKey ? "deliver_prominently" : "deliver_immediately"
        for key in ["keep_quiet", "turn_off", third] where fields[key] == nil {
            throw node.error("missing \"\(key)\"", hint: "write e.g. \(example)")
        }
        let keep = try fields["keep_quiet"]!.probability()
        let turnOff = try fields["turn_off"]!.probability()
        let immediately = try fields[third]!.probability()
        guard abs(keep + turnOff + immediately - 1) <= 0.001 else {
            throw node.error(
                "keep_quiet (\(keep)), turn_off (\(turnOff)) and \(third) (\(immediately)) add up to "
                    + String(format: "%.3f", keep + turnOff + immediately) + ", not 1",
                hint: "every quiet user makes exactly one of the three choices; make them add up to 1 (or 100%)")
        }
        let after =
            try fields["decide_after_days"].map { node throws(InputError) in try CountDistribution.parse(node) }
            ?? .fixed(1)
        return (turnOff, immediately, after, oldKey)
    }

    /// A table that must have exactly these keys, each of them.
    static func requiredFields(_ node: YAMLValue, _ keys: [String], example: String) throws(InputError) -> [String: YAMLValue] {
        let fields = try node.fields(allowed: keys)
        for key in keys where fields[key] == nil {
            throw node.error("missing \"\(key)\"", hint: "write e.g. \(example)")
        }
        return fields
    }
}

extension InputError {
    /// Names the file when there is no line to point at.
    func prefixed(_ file: String) -> InputError {
        var copy = self
        copy.message = "\(file): " + message
        return copy
    }
}

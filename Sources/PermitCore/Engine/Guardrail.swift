/// The rules the core keeps whatever the policy says (docs/reference/policy.md#guardrails), in the order they apply.
public enum Guardrail: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `request_permission` while the status could not be read. A request while the status is
    /// already determined (denied, or granted) is no guardrail's business: iOS answers it at
    /// once without a dialog, and the policy hears that answer (`system_prompt_answered`).
    case systemDialogUnavailable = "system-dialog-unavailable"
    /// Something to show while the app is not in the foreground: a `request_permission` that
    /// would show the dialog (iOS shows none of a background app), and at a run in the
    /// background (`background_refresh`, the user is not there) a soft or settings prompt, an
    /// inline row or an information page too.
    case appNotActive = "app-not-active"
    /// The `provisional` option below iOS 12: the option is dropped.
    case provisionalUnsupported = "provisional-unsupported"
    /// A soft prompt when the system dialog can no longer follow it.
    case softPromptPointless = "soft-prompt-pointless"
    /// A settings prompt when there is nothing to fix in Settings (never an inline row).
    case settingsPromptPointless = "settings-prompt-pointless"
    /// `open_settings` in answer to an event the user did not cause (a launch, a return to the
    /// foreground, a system event): Settings must open only because the user tapped something.
    case openSettingsNotUserInitiated = "open-settings-not-user-initiated"
    /// `notification_settings` below iOS 15.4 becomes `app_settings` (a settings prompt's, an
    /// information page's `open` button's, or `open_settings`').
    case deepLinkFallback = "deep-link-fallback"
    /// More prompts in one local day than the host allows.
    case promptCap = "prompt-cap"

    /// The name reports print (`prompt-cap`).
    public var description: String { rawValue }
}

/// A guardrail that fired, with a sentence that says what it changed and why.
public struct GuardrailWarning: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Which rule fired.
    public let guardrail: Guardrail
    /// What it changed and why, for a policy author reading a report.
    public let message: String

    /// The rule's name (`prompt-cap`).
    public var name: String { guardrail.rawValue }
    /// The name and the message.
    public var description: String { "\(guardrail.rawValue): \(message)" }
}

/// What the guardrails know about the moment of a decision.
public struct GuardrailSituation: Sendable, Hashable {
    /// The status after this event's read.
    public var status: PermissionStatus
    /// The notification settings of that read.
    public var settings: NotificationSettings
    /// The iOS version.
    public var version: OSVersion
    /// Whether the app is in the foreground (no system dialog otherwise).
    public var appIsActive: Bool
    /// Whether the event is a run in the background (`background_refresh`): the user is not
    /// there, so nothing the app shows of its own (a prompt, row or page) may be decided then.
    /// An event the app hears as it returns (a queued time change) is not one.
    public var runsInBackground: Bool
    /// Prompts already shown this local day.
    public var promptsToday: Int
    /// The host's daily cap.
    public var maxPromptsPerDay: Int
    /// Whether the user caused the event decided on (opened a screen, sent an app event,
    /// answered the app's prompt): only then may Settings open at once.
    public var userInitiated: Bool
    /// Whether the decision says why it may pass the daily cap (`cap_exempt`): `prompt-cap`
    /// then lets it through (it still counts as a prompt of the day).
    public var capExempt: Bool

    /// The situation of one decision.
    public init(
        status: PermissionStatus, settings: NotificationSettings, version: OSVersion,
        appIsActive: Bool, promptsToday: Int, maxPromptsPerDay: Int, userInitiated: Bool = true, capExempt: Bool = false,
        runsInBackground: Bool = false
    ) {
        self.runsInBackground = runsInBackground
        self.capExempt = capExempt
        self.status = status
        self.settings = settings
        self.version = version
        self.appIsActive = appIsActive
        self.promptsToday = promptsToday
        self.maxPromptsPerDay = maxPromptsPerDay
        self.userInitiated = userInitiated
    }
}

extension Guardrail {
    /// Applies every guardrail in order. Once one has voided the action, the later ones are not
    /// checked, so the result carries the one warning that explains the `none`.
    public static func apply(
        to action: Decision.Action, in situation: GuardrailSituation
    ) -> (action: Decision.Action, warnings: [GuardrailWarning]) {
        var action = action
        var warnings: [GuardrailWarning] = []
        func void(_ guardrail: Guardrail, _ message: String) -> (Decision.Action, [GuardrailWarning]) {
            warnings.append(GuardrailWarning(guardrail: guardrail, message: message))
            return (.none, warnings)
        }
        let status = situation.status
        let asksCriticalAlerts = criticalAlertsDialogShows(for: action, in: situation)

        if case .requestPermission(var options) = action {
            // Denied or granted already: iOS answers at once (docs/platform.md N-03), no mistake;
            // only the critical-alerts dialog of an authorized app still shows (S-02).
            guard status != .unknown else {
                return void(.systemDialogUnavailable, "the status could not be read, so no request is made")
            }
            guard situation.appIsActive || !(status.allowsSystemDialog || asksCriticalAlerts) else {
                return void(.appNotActive, "the app is not in the foreground, so iOS would show no dialog")
            }
            if situation.version < OSVersion(major: 12), options.contains(.provisional) {
                options.removeAll { $0 == .provisional }
                warnings.append(
                    GuardrailWarning(
                        guardrail: .provisionalUnsupported,
                        message: "provisional authorization needs iOS 12; the option was dropped on iOS \(situation.version)"))
                action = .requestPermission(options: options)
            }
        }

        if situation.runsInBackground, let shown = action.shownOnScreen { return void(.appNotActive, notShown(shown)) }

        if case .softPrompt = action, !status.allowsSystemDialog {
            return void(
                .softPromptPointless,
                "the status is \(status), so no system dialog can follow a soft prompt")
        }

        if case .settingsPrompt(var prompt) = action {
            if let pointless = nothingToChange(for: prompt, in: situation) { return void(.settingsPromptPointless, pointless) }
            if let fallback = linkFallback(prompt.deepLink, on: situation.version) {
                prompt.deepLink = .appSettings
                warnings.append(fallback)
                action = .settingsPrompt(prompt)
            }
        }

        if case .inform(let page) = action, let fallen = linkFallback(of: page, on: situation.version) {
            warnings.append(fallen.warning)
            action = .inform(fallen.page)
        }

        if case .openSettings(let deepLink) = action {
            guard situation.userInitiated else { return void(.openSettingsNotUserInitiated, openSettingsRefusal) }
            if let fallback = linkFallback(deepLink, on: situation.version) {
                warnings.append(fallback)
                action = .openSettings(.appSettings)
            }
        }

        if action.showsPrompt(status: status, version: situation.version) || asksCriticalAlerts,
            situation.promptsToday >= situation.maxPromptsPerDay, !situation.capExempt
        {
            return void(
                .promptCap,
                "\(situation.promptsToday) prompts were already shown today; the host allows \(situation.maxPromptsPerDay) a day")
        }
        return (action, warnings)
    }
}

extension Guardrail {
    /// Whether `action` brings up iOS's separate critical-alerts dialog: an entitled app, already
    /// authorized, asking for critical alerts it does not have yet (docs/platform.md S-02).
    /// Without the entitlement the setting reads `not_supported` and iOS answers at once.
    static func criticalAlertsDialogShows(for action: Decision.Action, in situation: GuardrailSituation) -> Bool {
        guard case .requestPermission(let options) = action else { return false }
        return situation.status == .authorized && options.contains(.criticalAlert)
            && situation.settings.criticalAlert == .disabled
    }

    /// Why a settings prompt has nothing to change in Settings, or `nil` when it has: the status
    /// is denied, or granted with the setting it is about not as the app wants it (alerts off,
    /// unless the prompt names another with `for_setting`, which must then hold its
    /// `unwantedValue`: `disabled`, or `enabled` for Scheduled Summary, which an app wants off;
    /// one the app cannot have is no switch to turn). An inline row ("Notification settings ›")
    /// belongs on its screen whatever the status.
    static func nothingToChange(for prompt: SettingsPrompt, in situation: GuardrailSituation) -> String? {
        let status = situation.status
        let value = situation.settings[prompt.forSetting ?? .alert]
        let needsChange = status.isGranted && (prompt.forSetting.map { value == $0.unwantedValue } ?? (value != .enabled))
        guard status != .denied, !needsChange, prompt.presentation != .inline else { return nil }
        let name = prompt.forSetting.map(\.rawValue) ?? "alerts"
        return "the status is \(status) with \(name) \(value): there is nothing to change in Settings"
    }

    /// Why `shown` (what a decision puts on the app's own screen) was voided at a run in the
    /// background.
    static func notShown(_ shown: String) -> String {
        "the app runs in the background, with no one to see \(shown)"
    }

    /// Why `open_settings` was refused.
    static let openSettingsRefusal =
        "Settings may open only in answer to a tap of the user's (a screen, an app event, an answer), "
        + "not at a launch, a return to the foreground or a system event; show a settings_prompt instead"

    /// A page whose `open` button links where `version` cannot go, with the app's Settings page
    /// instead and the warning: the button opens Settings as a settings prompt's `open` does,
    /// with the same fallback, so the host opens both with the same call.
    static func linkFallback(of page: InformPage, on version: OSVersion) -> (page: InformPage, warning: GuardrailWarning)? {
        guard page.open != nil, let warning = linkFallback(page.deepLink, on: version) else { return nil }
        var fallen = page
        fallen.deepLink = .appSettings
        return (fallen, warning)
    }

    /// The `deep-link-fallback` warning when `link` cannot be opened on `version` (the
    /// notification-settings link below iOS 15.4), where `app_settings` is used instead.
    static func linkFallback(_ link: DeepLink, on version: OSVersion) -> GuardrailWarning? {
        guard link == .notificationSettings, version < OSVersion(major: 15, minor: 4) else { return nil }
        return GuardrailWarning(
            guardrail: .deepLinkFallback,
            message: "the notification-settings link needs iOS 15.4; app_settings is used on iOS \(version)")
    }
}

extension Decision.Action {
    /// What this action puts on the app's own screen, in a reason's words (`a soft prompt`), or
    /// nil when it shows nothing there (`none`, `dismiss`, a request, `open_settings`).
    var shownOnScreen: String? {
        switch self {
        case .none, .dismiss, .requestPermission, .openSettings: nil
        case .softPrompt(let prompt): prompt.presentation == .inline ? "an inline soft-prompt row" : "a soft prompt"
        case .settingsPrompt(let prompt): prompt.presentation == .inline ? "an inline settings row" : "a settings prompt"
        case .inform(let page): page.presentation == .inline ? "an inline information row" : "an information page"
        }
    }

    /// Whether carrying out this action puts a prompt in front of the user: a soft or
    /// settings prompt (not an inline row), or a request that will show the system dialog. A
    /// request with the `provisional` option is granted silently when no dialog is due.
    func showsPrompt(status: PermissionStatus, version: OSVersion) -> Bool {
        switch self {
        // An information page asks nothing: no prompt, whatever its presentation.
        case .none, .openSettings, .inform, .dismiss: false
        case .softPrompt(let prompt): prompt.presentation != .inline
        case .settingsPrompt(let prompt): prompt.presentation != .inline
        case .requestPermission(let options):
            status.requestShowsDialog(options: options, provisionalSupported: version >= OSVersion(major: 12))
        }
    }
}

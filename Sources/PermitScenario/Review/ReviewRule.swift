/// The App Store and Human Interface Guidelines risks `permit check --review` warns about,
/// each with the guideline's words and where docs/review.md explains it.
public enum ReviewRule: String, Sendable, CaseIterable {
    /// A pre-prompt button worded like the system alert's "Allow".
    case allowButton = "allow-button"
    /// A pre-prompt that copies the system alert's title or its "Don't Allow".
    case imitatesSystemAlert = "imitates-system-alert"
    /// Asking (pre-prompt or system dialog) on `app_launch`, before any feature needs it.
    case asksAtLaunch = "asks-at-launch"
    /// A private Settings URL (`App-Prefs:`, `prefs:root`) in a text.
    case privateSettingsURL = "private-settings-url"
    /// A pre-prompt whose decline still brings up the system dialog.
    case declineStillAsks = "decline-still-asks"
    /// The system dialog on an app event of the app's own, with no pre-prompt before it.
    case coldAskOnAppEvent = "cold-ask-on-app-event"

    /// The guideline, in its own short words, with its address.
    public var guideline: String {
        switch self {
        case .allowButton:
            "HIG Privacy, pre-alert screens: \"Include only one button and make it clear that it opens the system alert\"; "
                + "earlier HIG wording: use a word like \"Continue\", not \"Allow\" "
                + "(https://developer.apple.com/design/human-interface-guidelines/privacy)"
        case .imitatesSystemAlert:
            "HIG Privacy: never precede the system alert with a screen \"that could confuse or mislead people\" "
                + "(https://developer.apple.com/design/human-interface-guidelines/privacy)"
        case .asksAtLaunch:
            "HIG Privacy: \"Avoid requesting permission at launch unless the data or resource is required for your app to function\" "
                + "(https://developer.apple.com/design/human-interface-guidelines/privacy)"
        case .privateSettingsURL:
            "App Review Guideline 2.5.1: apps may only use public APIs; reviewers name \"prefs:root\" and \"App-Prefs:root\" "
                + "as non-public URL schemes (https://developer.apple.com/app-store/review/guidelines/, section 2.5.1)"
        case .declineStillAsks:
            "App Review Guideline 5.1.1(iv): apps must \"not attempt to manipulate, trick, or force people to consent\"; "
                + "HIG Privacy, pre-alert screens: the screen's button \"opens the system alert\", so its other way out must not "
                + "(https://developer.apple.com/app-store/review/guidelines/, section 5.1.1)"
        case .coldAskOnAppEvent:
            "HIG Privacy: \"Request permission only when your app clearly needs access\", in context, so people understand why "
                + "(https://developer.apple.com/design/human-interface-guidelines/privacy)"
        }
    }

    /// The section of docs/review.md that explains the rule and its fix.
    public var documentation: String { "docs/review.md#\(rawValue)" }
}

/// One risk `permit check --review` found: where, which rule, and what it saw.
public struct ReviewFinding: Sendable, Hashable, Comparable {
    /// The policy file and line (`policies/p/policy.lua:12`), or the file and the probe that
    /// showed it (`policies/p/policy.lua (app_launch, iOS 17.0)`).
    public var location: String
    /// The rule.
    public var rule: ReviewRule
    /// What it saw, in words.
    public var message: String

    /// A finding.
    public init(location: String, rule: ReviewRule, message: String) {
        self.location = location
        self.rule = rule
        self.message = message
    }

    /// By location, then rule: a stable order for reports.
    public static func < (lhs: ReviewFinding, rhs: ReviewFinding) -> Bool {
        (lhs.location, lhs.rule.rawValue, lhs.message) < (rhs.location, rhs.rule.rawValue, rhs.message)
    }
}

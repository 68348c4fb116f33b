import Foundation
import PermitCore
import PermitInput

/// One scenario file: a device, a starting state and the steps a user takes (docs/reference.md#scenarios).
public struct Scenario: Sendable {
    public var name: String
    /// The file the scenario came from.
    public var file: String
    /// The policy named by the file (resolved against the file's directory), if any.
    public var policy: URL?
    public var device: Device
    public var userBucket: Int
    public var params: [String: PolicyValue]
    /// Where `params` is written, for errors about them.
    public var paramsLocation: SourceLocation?
    public var maxPromptsPerDay: Int
    public var start: Date
    public var initial: Initial
    public var steps: [Step]
    /// Public keys (`trusted_keys`) that `policy_update` bundles must be signed by; none means
    /// unsigned bundles are accepted, as in development.
    public var trustedKeys: [URL] = []
    public var trustedKeysLocation: SourceLocation?

    public struct Device: Sendable {
        public var version: OSVersion
        public var locale: String
        public var timeZone: TimeZone
        public var isAppClip: Bool
        /// Reads after a change in Settings that still report the old value.
        public var staleReads: Int

        public var platform: Platform { Platform(version: version, isAppClip: isAppClip) }
    }

    /// The device and app before step 1.
    public struct Initial: Sendable {
        /// The device's truth (also on iOS 8–9); `nil` means the device default.
        public var authorization: PermissionStatus?
        public var settings: [NotificationSettings.Setting: SettingValue]
        public var ledger: Ledger
        public var location: SourceLocation?
    }

    public struct Step: Sendable {
        /// 1-based.
        public var number: Int
        public var location: SourceLocation
        /// Seconds the clock moves before the action.
        public var after: Int64
        public var action: Action
        public var expectations: Expectations
    }

    /// What a step does: one thing.
    public enum Action: Sendable, Hashable {
        case event(AppEvent)
        case answer(Answer)
        case settings(authorization: PermissionStatus?, settings: [NotificationSettings.Setting: SettingValue])
        case reinstall(systemRemembers: Bool)
        /// Only `after`: time passes (reminders fire, days roll over).
        case wait
        /// A policy bundle arrives and is installed between events, as in a rollout.
        case policyUpdate(URL)
    }

    /// An answer to whatever is on screen.
    public enum Answer: String, Sendable, CaseIterable {
        case accept, decline, dismiss, open, cancel, allow, deny
    }

    /// What a step expects (docs/reference.md#expectations). `nil` fields are not checked.
    public struct Expectations: Sendable {
        public var decision: ExpectedDecision?
        public var status: PermissionStatus?
        public var warnings: [String]?
        public var error: ExpectedError?
        public var dialog: Bool?
        public var pending: Int?
        /// About the reminders this step scheduled.
        public var reminders: ExpectedReminders?
        public var ledger: [(path: String, value: PolicyValue?, location: SourceLocation)]
        /// `expect_update` of a `policy_update` step.
        public var update: ExpectedUpdate? = nil

        public var isEmpty: Bool {
            decision == nil && status == nil && warnings == nil && error == nil && dialog == nil && pending == nil
                && reminders == nil && ledger.isEmpty && update == nil
        }
    }

    /// `expect: soft_prompt`, or a table matched field by field (texts after localisation).
    public enum ExpectedDecision: Sendable, Hashable {
        case action(String)
        case fields([String: PolicyValue])
    }

    /// `expect_update: installed`, `refused`, or a piece of the refusal (`refused` alone: any).
    public enum ExpectedUpdate: Sendable, Hashable {
        case installed
        case refused(String?)
    }

    /// `expect_reminders: { count: 3, alert: false }`: how many reminders the step scheduled,
    /// and whether they show an alert (`false`: badge and sound only, as when alerts are off).
    public struct ExpectedReminders: Sendable, Hashable {
        public var count: Int?
        public var alert: Bool?
    }

    public enum ExpectedError: Sendable, Hashable {
        case any
        case containing(String)
    }
}

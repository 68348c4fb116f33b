import Foundation
import PermitCore
import PermitSimulator

/// `permit decide` as one call: one event through the real engine on a simulated device in a
/// given status, so the guardrails and localisation apply as in an app. A one-step scenario
/// without a file.
public struct SingleDecision: Sendable {
    /// The simulated device's iOS version, and whether the app is an App Clip.
    public var platform: Platform
    /// The device's status before the event (not `unknown`).
    public var status: PermissionStatus
    /// The user's language (BCP 47), for the policy's texts.
    public var locale: String
    /// What the app remembers. On iOS 8–9 its legacy registration is made to agree with
    /// `status`, as it would on a real device.
    public var ledger: Ledger
    /// Overrides of the policy's params.
    public var params: [String: PolicyValue]
    /// The device's time zone (`ctx.local_time`, the local day of `prompts_today`).
    public var timeZone: TimeZone
    /// `ctx.user.bucket`, 0–99.
    public var userBucket: Int
    /// Pinned experiment arms (`--arm first_ask=quiet`).
    public var arms: [String: String] = [:]

    /// A decision to make; `ledger` and `params` default to a fresh install and the policy's own
    /// params, the zone to this machine's, the bucket to 0.
    public init(
        platform: Platform, status: PermissionStatus, locale: String = "en", ledger: Ledger = Ledger(),
        params: [String: PolicyValue] = [:], timeZone: TimeZone = .current, userBucket: Int = 0
    ) {
        self.platform = platform
        self.status = status
        self.locale = locale
        self.ledger = ledger
        self.params = params
        self.timeZone = timeZone
        self.userBucket = userBucket
    }

    /// What the caller asked for that cannot be.
    public enum Problem: Error, Sendable {
        /// The params do not fit the policy.
        case params(PolicyError)
        /// The device cannot be in this status (provisional before iOS 12, say).
        case status(SimulatedDeviceError)
        /// A pinned arm the policy's experiments do not have, worded with a suggestion.
        case arm(String)
    }

    /// Handles `event` with `policy` at `now` (rounded down to whole seconds, as the engine counts).
    public func outcome(of event: AppEvent, policy: any Policy, now: Date = Date()) async throws(Problem) -> Outcome {
        try await outcomes(of: [event], policy: policy, now: now)[0]
    }

    /// Handles `events` one after another on one device, ten seconds apart from `now`: a
    /// pre-prompt and its answer, say. The outcomes in order; `events` must not be empty.
    public func outcomes(of events: [AppEvent], policy: any Policy, now: Date = Date()) async throws(Problem) -> [Outcome] {
        do { try policy.validate(params: params) } catch { throw .params(error) }
        for (experiment, arm) in arms.sorted(by: { $0.key < $1.key }) {
            if let problem = ArmAssignment.problem(withPin: experiment, arm: arm, in: policy.experiments) {
                throw .arm("\(experiment)=\(arm): \(problem)")
            }
        }
        let clock = ManualClock(Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
        let device: SimulatedDevice
        // `--status ephemeral` says the App Clip asks for ephemeral notifications.
        do {
            device = try SimulatedDevice(
                platform: platform, clock: clock, authorization: status, ephemeralNotifications: status == .ephemeral)
        } catch {
            throw .status(error)
        }
        var ledger = ledger
        if platform.usesLegacyRegistration {
            ledger.legacyRegistered = status == .denied || (ledger.legacyRegistered && status != .notDetermined)
        }
        let engine = PermissionEngine(
            policy: policy, client: device, platform: platform, store: InMemoryLedgerStore(ledger), clock: clock,
            configuration: EngineConfiguration(
                locale: locale, timeZone: timeZone, userBucket: userBucket, params: params, foregroundRechecks: [],
                installID: ledger.installID ?? "decide", arms: arms))
        var outcomes: [Outcome] = []
        for event in events {
            if !outcomes.isEmpty { clock.advance(by: 10) }
            outcomes.append(await engine.handle(event))
        }
        return outcomes
    }
}

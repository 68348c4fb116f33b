import Foundation
import PermitCore

/// Something about a run that makes a policy's figures mean less than they seem: a policy that
/// waits for a feature or an event the model never produces can show no prompt at all, and the
/// report would read as "this policy does nothing" rather than "the model never gave it a chance".
public struct SimulationWarning: Sendable, Hashable, CustomStringConvertible {
    /// The policy's name.
    public let policy: String
    /// What is wrong and what to do.
    public let message: String

    /// `policy: message`.
    public var description: String { "\(policy): \(message)" }

    /// The warnings for a finished run: features and events a policy names that the model (or
    /// the simulation) never produces, policies that prompted nobody, and features and events
    /// the model names that no policy does (`modelWarnings`).
    static func check(policies: [SimulationPolicy], results: [PolicyResult], model: UserModel) -> [SimulationWarning] {
        let opened = Set(model.features.items.map(\.value))
        var warnings: [SimulationWarning] = []
        for (policy, result) in zip(policies, results) {
            let features = policy.namedFeatures.filter { !opened.contains($0) }
            if !features.isEmpty {
                warnings.append(
                    SimulationWarning(
                        policy: policy.name,
                        message: "names feature\(features.count == 1 ? "" : "s") \(quoted(features)) that the model never opens "
                            + "(it opens \(quoted(opened.sorted()))); prompts keyed to \(features.count == 1 ? "it" : "them") "
                            + "can never show. Add \(features.count == 1 ? "it" : "them") to the model's `features`"))
            }
            warnings += eventWarnings(policy, model: model)
            if result.users > 0,
                result.answers.softPrompts + result.answers.dialogsCold + result.answers.dialogsAfterAccept
                    + result.answers.settingsPrompts == 0
            {
                warnings.append(
                    SimulationWarning(
                        policy: policy.name,
                        message: "prompted nobody (no soft prompt, system dialog or settings prompt in \(result.users) users × "
                            + "\(result.days) days); check that the model produces the features and events it waits for"))
            }
        }
        return warnings + modelWarnings(policies: policies, model: model)
    }

    /// Events the policy names that nobody sends it, and events the model sends that the policy
    /// does not declare (so they are not sent to it).
    private static func eventWarnings(_ policy: SimulationPolicy, model: UserModel) -> [SimulationWarning] {
        var warnings: [SimulationWarning] = []
        let sent = AppEvent.names + model.appEvents(declaredBy: policy).map(\.name)
        let events = policy.namedEvents.filter { !sent.contains($0) }
        if !events.isEmpty {
            warnings.append(
                SimulationWarning(
                    policy: policy.name,
                    message: "names event\(events.count == 1 ? "" : "s") \(quoted(events)) that the simulation never sends "
                        + "(it sends \(quoted(sent))); decisions waiting for \(events.count == 1 ? "it" : "them") never run. "
                        + "Add \(events.count == 1 ? "it" : "them") to the model's `events` (and to the policy's `events = { ... }`)"))
        }
        let skipped = model.appEvents.filter { !policy.declaredEvents.contains($0.name) }
        if !skipped.isEmpty {
            let declared = policy.declaredEvents.isEmpty ? "it declares no events" : "it declares \(quoted(policy.declaredEvents))"
            let named = skipped.map { "\"\($0.name)\" (\($0.place))" }.joined(separator: ", ")
            warnings.append(
                SimulationWarning(
                    policy: policy.name,
                    message: "does not declare the event\(skipped.count == 1 ? "" : "s") \(named) that the model sends, "
                        + "so \(skipped.count == 1 ? "it is" : "they are") not sent to this policy (\(declared)); "
                        + "if a name is misspelt, fix it in the model"))
        }
        return warnings
    }

    private static func quoted(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }
}

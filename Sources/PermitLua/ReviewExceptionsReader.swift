import PermitCore

/// A policy's `review_exceptions = { ["prompt-before-value"] = "why" }`: the review rules its
/// authors chose to break on purpose, each with the reason, so that `permit check --review`
/// prints the reason instead of the warning and `--strict` can gate a pack that decided so.
///
/// Read here for its shape (names to reasons, each reason said); which names are review rules
/// is the reviewer's to judge (PermitScenario's `ReviewRule`), which `permit check` does.
enum ReviewExceptionsReader {
    /// The longest reason, in bytes: a decision's reason cap.
    static let maxReasonBytes = DecisionReader.maxTextBytes

    /// The exceptions, and every problem of the table.
    static func read(_ value: LuaValue, chunkName: String) -> (exceptions: [String: String], problems: [PolicyError]) {
        var exceptions: [String: String] = [:]
        var problems: [PolicyError] = []
        func problem(_ field: String, _ message: String) {
            problems.append(PolicyError(kind: .load, field: field, message: message, file: chunkName))
        }
        guard case .table(let table) = value, !table.hasMetatable else {
            problem(
                "policy.review_exceptions",
                "expected a table of rule names and reasons like { [\"prompt-at-launch\"] = \"why\" }, got "
                    + DecisionReader.describe(value))
            return ([:], problems)
        }
        for entry in table.entries {
            guard case .string(let rule) = entry.key else {
                problem("policy.review_exceptions", "keys are review rule names, got \(DecisionReader.describe(entry.key))")
                continue
            }
            let field = "policy.review_exceptions[\"\(rule)\"]"
            guard case .string(let why) = entry.value, !why.trimmingCharacters(in: .whitespaces).isEmpty else {
                problem(
                    field,
                    "say why the rule does not apply (the reason is printed by permit check --review), got \(DecisionReader.describe(entry.value))"
                )
                continue
            }
            guard why.utf8.count <= maxReasonBytes else {
                problem(field, "a reason of \(why.utf8.count) bytes is longer than the \(maxReasonBytes) allowed")
                continue
            }
            exceptions[rule] = why
        }
        return (exceptions, problems)
    }
}

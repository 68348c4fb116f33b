import Foundation
import PermitCore
import PermitLua
import PermitScenario

/// Every text the policy can show, by locale: the decisions `permit check`'s probes meet
/// (each status, night and day, each event: CheckProbes) and those of the pack's scenarios
/// collected, each text once, with the declared locales it does not reach marked
/// (TranslationCheck's rule: the user sees English).
enum CopyTable {
    /// A place in a decision and its text.
    private struct Found {
        var place: String
        var field: String
        var text: LocalizedText
    }

    /// Collects what the probes' decisions show; a class so the probe callback can add to it.
    private final class Collector: @unchecked Sendable {
        var found: [Found] = []
        var seen = Set<String>()

        func add(_ decision: Decision) {
            let reason = decision.reason.map { " (\($0))" } ?? ""
            guard let shown = Self.place(of: decision.action) else { return }
            add(decision.action.texts, at: shown + reason)
            if let row = decision.row, let place = Self.place(of: row) {
                add(row.texts.map { ("row.\($0.field)", $0.text) }, at: "\(place) beside the \(shown)\(reason)")
            }
        }

        private func add(_ texts: [(field: String, text: LocalizedText)], at place: String) {
            for (field, text) in texts where seen.insert("\(place)|\(field)|\(text)").inserted {
                found.append(Found(place: place, field: field, text: text))
            }
        }

        /// What the app shows for an action, in the table's words; `nil` for none.
        static func place(of action: Decision.Action) -> String? {
            switch action {
            case .softPrompt(let prompt): prompt.presentation == .inline ? "inline soft prompt" : "soft prompt"
            case .settingsPrompt(let prompt): prompt.presentation == .inline ? "inline settings prompt" : "settings prompt"
            case .inform(let page): page.isLabel ? "label" : page.presentation == .inline ? "inline information row" : "information page"
            case .none, .requestPermission, .openSettings, .dismiss: nil
            }
        }
    }

    /// The table for the policy at `url` with its pack's copy, with the texts of
    /// `scenarioDecisions` too.
    static func table(
        policyAt url: URL, displayName: String, limits: LuaLimits, scenarioDecisions: [Decision]
    ) async -> PlaygroundReports.Copy {
        let policy: LuaPolicy
        do {
            policy = try LuaPolicy.load(
                contentsOf: url, displayName: displayName, limits: limits, copy: try PackEvaluation.copy(besidePolicy: url))
        } catch {
            return PlaygroundReports.Copy(locales: [], rows: [], problems: [error.description])
        }
        let collector = Collector()
        let findings = await CheckProbes.run(
            policy, features: CheckProbes.features(params: policy.defaultParams, policyAt: url),
            translationProblems: { decision in
                collector.add(decision)
                return TranslationCheck.problems(of: decision, locales: policy.locales)
            })
        for decision in scenarioDecisions { collector.add(decision) }
        var locales = policy.locales
        for found in collector.found {
            if case .translations(let table) = found.text {
                for key in table.keys.sorted() where !locales.contains(key) { locales.append(key) }
            }
        }
        if !locales.contains("en") { locales.insert("en", at: 0) }
        let rows = collector.found.map { found -> PlaygroundReports.CopyRow in
            let texts: [String: String] =
                switch found.text {
                case .plain(let text): ["*": text]
                case .translations(let table): table
                }
            return PlaygroundReports.CopyRow(
                place: found.place, field: found.field, texts: texts,
                missing: TranslationCheck.missingLocales(of: found.text, from: locales))
        }
        return PlaygroundReports.Copy(
            locales: locales, rows: rows, problems: findings.translations + findings.errors.map { "\($0.error) (probe \($0.probe))" })
    }
}

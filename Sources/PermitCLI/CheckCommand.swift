import ArgumentParser
import Foundation
import PermitCore
import PermitInput
import PermitLua
import PermitScenario

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load policies in the sandbox and validate their shape and params.",
        discussion: """
            Reports every problem of every file at once: syntax and runtime errors at load with file \
            and line, a missing name or decide, unknown fields, params that are not plain data, and \
            every ctx.a.b.c path in the source that names no ctx field (with its line); then probe \
            runs of decide through the engine (each status, night and day, each app event counted, \
            docs/reference/cli.md#check-probes) report every decision permit decide would refuse, \
            with the probe that met it, and texts whose translations are incomplete (a locale some \
            texts of a decision have and others lack, a key that is not BCP 47 such as en_US, no \
            en, a locale of the policy's locales = { ... } missing). Exit 0 when all are valid, 2 \
            otherwise.

            --review adds App Store and Human Interface Guidelines risks (docs/review.md): a \
            pre-prompt button that says "Allow" or copies the system alert, asking on app_launch, \
            private Settings URLs (App-Prefs:, prefs:root), a pre-prompt whose decline still asks, \
            the system dialog on an app event with no pre-prompt. They are warnings: exit 0, or 1 \
            with --strict.

            Examples:
              permit check policies/*/policy.lua
              permit check --review policies/polite
              permit check --review --strict policies/*
            """)

    @Argument(help: "Policy files or pack directories.")
    var policies: [String]

    @OptionGroup var limitOptions: LimitOptions

    @Flag(
        help:
            "Also warn about App Store and HIG risks: \"Allow\" buttons, copies of the system alert, asking on app_launch, private Settings URLs, a decline that still asks, a cold ask on an app event."
    )
    var review = false

    @Flag(help: "With --review: exit 1 when there is a warning.")
    var strict = false

    func validate() throws {
        if strict, !review { throw ValidationError("--strict applies to --review's warnings: add --review") }
        guard !policies.isEmpty else { throw ValidationError("give at least one policy file") }
    }

    func run() async throws {
        var problems = 0
        var warnings = 0
        for path in policies {
            guard let url = try? policyURL(path) else { problems += 1; continue }
            let shown = Discovery.displayPath(of: url)
            let copy: PolicyCopy
            do { copy = try packCopy(besidePolicy: url) } catch {
                Terminal.say("error \(error)")
                problems += 1
                continue
            }
            let (loaded, found) = LuaPolicy.check(contentsOf: url, displayName: shown, limits: limitOptions.limits, copy: copy)
            guard let policy = loaded else {
                for problem in found { Terminal.say("error \(problem)") }
                problems += 1
                continue
            }
            var errors: [String] = []
            if let source = try? LuaPolicy.source(contentsOf: url, displayName: shown) {
                errors += ContextPathCheck.problems(
                    in: source, chunkName: shown, params: Array(policy.defaultParams.keys), events: policy.declaredEvents
                ).map(\.description)
            }
            errors += Self.copyProblems(policy, url: url)
            errors += Self.unknownExceptions(policy, shown: shown)
            let staticProblems = !errors.isEmpty
            let probed = await CheckProbes.run(
                policy, features: CheckProbes.features(params: policy.defaultParams, policyAt: url),
                appEvents: CheckProbes.scenarioEvents(policyAt: url),
                translationProblems: { TranslationCheck.problems(of: $0, locales: policy.locales) })
            errors += probed.translations.map { "\(shown): \($0)" }
            // A malformed decision is what `permit decide` refuses: named with the probe that met it.
            // A probe's error that the static check or the translation check already names (an
            // unknown ctx field, a table without "en") is not said twice.
            let decisionErrors = probed.errors.filter { !staticProblems && $0.error.kind != .missingTranslation }
            errors += decisionErrors.map { found in
                (found.error.file == nil ? "\(shown): " : "") + "\(found.error)\n      found by the probe \(found.probe)"
            }
            if errors.isEmpty {
                Terminal.say(Self.okLine(policy, shown: shown))
            } else {
                for error in errors { Terminal.say("error \(error)") }
                problems += 1
            }
            // A policy that loads is reviewed even when a decision of it is malformed: an ask on
            // launch that fails validation is still an ask on launch.
            if review {
                warnings += await reviewFindings(policy, url: url, shown: shown)
                for exemption in probed.capExemptions {
                    Terminal.say("note  \(shown): cap_exempt: \(TerminalText.inline(exemption.why)) (passes prompt-cap)")
                    Terminal.say("      found by the probe \(exemption.probe)")
                }
            }
        }
        if review {
            Terminal.say(
                warnings == 0 ? "review: no warnings" : "review: \(warnings) warning\(warnings == 1 ? "" : "s") (see docs/review.md)")
        }
        if problems > 0 { throw Exit.badInput }
        if strict, warnings > 0 { throw Exit.failure }
    }

    /// Prints the review's findings for one policy (static scan, then probes); their count.
    private func reviewFindings(_ policy: LuaPolicy, url: URL, shown: String) async -> Int {
        let source = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let scanned = PolicyReview.scan(source: source, file: shown)
        let probed = await PolicyReview.probe(
            policy, file: shown, features: CheckProbes.features(params: policy.defaultParams, policyAt: url))
        // A probe seeing a text the scan already placed on its line says nothing new, nor does
        // a second probe seeing the same text.
        var seen = Set(scanned.map { "\($0.rule)|\($0.message)" })
        var findings = scanned
        for finding in probed where seen.insert("\(finding.rule)|\(finding.message)").inserted { findings.append(finding) }
        var warned = 0
        for finding in findings {
            // A rule the policy says it breaks on purpose: its reason, not a warning.
            if let why = policy.reviewExceptions[finding.rule.rawValue] {
                Terminal.say("note  \(finding.location): \(finding.rule.rawValue): excepted by the policy: \(why)")
                continue
            }
            Terminal.say("warn  \(finding.location): \(finding.rule.rawValue): \(finding.message)")
            Terminal.say("      \(finding.rule.guideline); see \(finding.rule.documentation)")
            warned += 1
        }
        return warned
    }

    /// `ok    polite/policy.lua  name "polite", params ...`: what a valid policy declares.
    static func okLine(_ policy: LuaPolicy, shown: String) -> String {
        let params = policy.defaultParams.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "ok    \(shown)  name \(TerminalText.inline(policy.name))"
            + (params.isEmpty ? "" : ", params \(params.joined(separator: ", "))")
            + (policy.plansReminders ? ", plans reminders" : "")
            + (policy.locales.isEmpty ? "" : ", locales \(policy.locales.joined(separator: ", "))")
            + policy.experiments.map { experiment in
                ", experiment \(experiment.name) (" + experiment.arms.map { "\($0.name) \($0.weight)" }.joined(separator: ", ") + ")"
            }.joined()
    }

    /// Every key of the pack's copy a locale lacks: a locale the policy declares
    /// (`locales = { ... }`) or one the pack has a copy file for, each missing key named with the
    /// file it belongs in; then every text whose placeholders differ from its key's text in the
    /// pack's first locale (the policy's first declared, else `en`), with its file and line.
    static func copyProblems(_ policy: LuaPolicy, url: URL) -> [String] {
        guard !policy.copy.isEmpty else { return [] }
        let pack = Discovery.displayPath(of: url.deletingLastPathComponent())
        let folder = pack == WorkingDirectory.current.path ? "copy" : "\(pack)/copy"
        let locales = Set(policy.locales).union(policy.copy.locales.keys).sorted()
        let missing = policy.copy.missing(in: locales).map { missing in
            let has = policy.copy.locales.keys.sorted().filter { policy.copy.locales[$0]?[missing.key] != nil }
            return "\(folder)/\(missing.locale).yaml: no text for \"\(missing.key)\" "
                + "(\(has.map { "\($0).yaml" }.joined(separator: ", ")) \(has.count == 1 ? "has" : "have") it); add it to the file"
        }
        let mismatched = CopyFiles.placeholderMismatches(
            in: policy.copy, besidePolicy: url, shownPack: pack == WorkingDirectory.current.path ? "" : pack,
            preferred: policy.locales + ["en"])
        return missing + mismatched.map(\.description)
    }

    /// A review exception that names no review rule: a typo would except nothing.
    static func unknownExceptions(_ policy: LuaPolicy, shown: String) -> [String] {
        let rules = ReviewRule.allCases.map(\.rawValue)
        return policy.reviewExceptions.keys.sorted().filter { !rules.contains($0) }.map { name in
            "\(shown): policy.review_exceptions[\"\(name)\"]: not a review rule; \(Suggestion.hint(for: name, in: rules))"
        }
    }
}

import ArgumentParser
import Foundation
import PermitInput
import PermitSimulation

struct FitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fit",
        abstract: "Fit a user model from the app's own decision logs.",
        discussion: """
            Reads decision records as JSON Lines, each wrapped with the install, durable user id, iOS \
            version and locale the app's logger adds (the format `permit simulate --records` writes; \
            docs/reference/cli.md#cli-fit), and writes a model file for `permit simulate`: every \
            figure the records identify, with its 95% interval and sample size in a comment beside \
            it, and the base model's value, flagged, for each figure they do not. Each install's \
            records must be in time order. A file may hold the compact form instead (one line per \
            install with only what the fit reads; docs/reference/model.md#compact-records), which \
            `--compact` writes from full records.

            Examples:
              permit fit app-records.jsonl --out fitted.yaml
              permit fit week1.jsonl week2.jsonl --base examples/models/default.yaml --out fitted.yaml
              permit fit app-records.jsonl --compact app-records.compact.jsonl
            """)

    @Argument(help: "Decision-log files (JSON Lines).")
    var records: [String] = []

    @Option(help: "Where to write the fitted model (YAML).")
    var out: String?

    @Option(help: "Instead of fitting, write the records' compact form (one line per install) to this file.")
    var compact: String?

    @Option(help: "The model whose values stand for what the records cannot identify (default: examples/models/default.yaml's figures).")
    var base: String?

    func validate() throws {
        guard !records.isEmpty else {
            throw ValidationError("give at least one records file, e.g. permit fit records.jsonl --out fitted.yaml")
        }
        guard (out == nil) != (compact == nil) else {
            throw ValidationError(
                "give --out MODEL to fit, or --compact FILE to write the compact form, e.g. permit fit records.jsonl --out fitted.yaml")
        }
        if compact != nil, base != nil { throw ValidationError("--base is for fitting; --compact only rewrites the records") }
        if let twice = records.first(where: { path in records.filter { $0 == path }.count > 1 }) {
            throw ValidationError("\(twice) is given twice: its records would count twice; give each file once")
        }
    }

    func run() async throws {
        if let compact {
            try OutputPath.refuseInputs("--compact", compact, inputs: records.map { (label: "records", path: $0) })
            let written: (data: Data, installs: Int, records: Int)
            do {
                written = try CompactRecords.convert(records.map { (Terminal.file($0), $0) })
            } catch {
                Terminal.printError(error.description)
                throw Exit.badInput
            }
            try writeAtomically(written.data, to: compact)
            Terminal.say("\(written.records) records of \(written.installs) installs written to \(compact) in the compact form")
            return
        }
        guard let out else { return }
        try OutputPath.refuseInputs(
            "--out", out, inputs: records.map { (label: "records", path: $0) } + (base.map { [(label: "--base", path: $0)] } ?? []))
        let baseName = base ?? "the default model"
        let baseText: String
        if let base {
            do {
                baseText = try InputText.read(Terminal.file(base), name: base)
            } catch {
                Terminal.printError(error.description)
                throw Exit.badInput
            }
        } else {
            baseText = FitCommand.defaultModel
        }
        let baseModel: UserModel
        do {
            baseModel = try UserModel.parse(baseText, file: base ?? "the default model")
        } catch {
            Terminal.printError(error.description)
            throw Exit.badInput
        }
        var fit = RecordFit()
        for path in records {
            do {
                try fit.read(contentsOf: Terminal.file(path), name: path)
            } catch {
                Terminal.printError(error.description)
                throw Exit.badInput
            }
        }
        let fitted = FittedModel(fit: fit, base: baseModel, baseText: baseText, baseName: baseName)
        for warning in fitted.warnings { Terminal.printError("warning: \(warning)") }
        do {
            _ = try UserModel.parse(fitted.yaml, file: out)
        } catch {
            Terminal.printError("the fitted model does not read back (\(error.description)); please report this")
            throw Exit.badInput
        }
        try writeAtomically(Data(fitted.yaml.utf8), to: out)
        Terminal.say(
            "fitted \(fitted.figures.count) figures from \(fit.recordCount) records; model written to \(out)")
    }

    /// examples/models/default.yaml's figures, for a fit without `--base` (the binary does not
    /// carry the repository's files). A test holds the two the same.
    static let defaultModel = """
        name: default
        os_versions: { "9.3": 0.01, "12.5": 0.04, "15.2": 0.06, "16.7": 0.23, "17.5": 0.66 }
        locales: { en: 0.55, de: 0.10, ja: 0.10, zh-Hans: 0.15, pt-BR: 0.10 }
        sessions_per_day: { poisson: 1.2 }
        feature_opens_per_session: { poisson: 0.8 }
        features: { reminders: 0.3, messages: 0.2, history: 0.3, settings: 0.2 }
        soft_prompt: { accept: 0.64, dismiss: 0.15 }
        system_dialog: { allow_cold: 0.41, allow_after_soft_accept: 0.90 }
        settings_prompt: { open: 0.25, enable: 0.6 }
        inline: { act: 0.05 }
        provisional: { keep_quiet: 0.6, turn_off: 0.3, deliver_immediately: 0.1, decide_after_days: { uniform: [1, 7] } }
        annoyance: { deny_increase_per_prompt: 0.03, uninstall_per_prompt: 0.005 }
        reinstall: { chance: 0.3, after_days: { uniform: [1, 14] }, system_remembers: 0.5 }
        max_prompts_per_day: 3
        cold_launch_share: 0.6

        """
}

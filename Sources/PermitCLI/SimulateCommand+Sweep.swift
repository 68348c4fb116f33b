import ArgumentParser
import Foundation
import PermitCore
import PermitSimulation

extension SimulateCommand {
    /// Runs `--sweep` over the one policy and prints the table or JSON. Every mistake in the
    /// sweep's flags is bad input (exit 2) naming the flag and the value.
    func runSweep(policy: SimulationPolicy, model userModel: UserModel, users userCount: Int) async throws {
        let axes = try sweepAxes(for: policy)
        let combinations = axes.reduce(1) { $0 * $1.values.count }
        guard combinations <= Sweep.maxCombinations else {
            Terminal.printError(
                "--sweep: \(combinations) combinations; a sweep runs at most \(Sweep.maxCombinations), "
                    + "so give fewer values")
            throw Exit.badInput
        }
        let goal = try objective.map { try sweepMetric($0, flag: "--objective") }
        var bounds: [SweepConstraint] = []
        for text in constraints {
            do {
                bounds.append(try SweepConstraint.parse(text, days: days))
            } catch {
                switch error {
                case .malformed:
                    Terminal.printError("--constraint \(text): write metric<=N% or metric>=N%, e.g. --constraint uninstalls<=2%")
                case .unknownMetric(let name):
                    _ = try sweepMetric(name, flag: "--constraint")
                }
                throw Exit.badInput
            }
        }
        let options = SimulationOptions(users: userCount, days: days, seed: seed, workers: workers)
        let bar = Console.current.isTerminal(.error) ? ProgressBar(console: .current) : nil
        let result: SweepResult
        let started = Date()
        do {
            result = try await Sweep.run(
                policy: policy, axes: axes, model: userModel, options: options, objective: goal,
                constraints: bounds, confirmations: confirm, sensitivity: sensitivity ?? 0
            ) { done, total in bar?.update(done: done, total: total) }
        } catch {
            bar?.clear()
            Terminal.printError("--sweep: \(error)")
            throw Exit.badInput
        }
        bar?.clear()
        for warning in result.simulation.warnings { Terminal.printError("warning: \(warning)") }
        if let report { try writeAtomically(Data(result.html(modelFile: model).utf8), to: report) }
        switch format {
        case .json: Terminal.say(result.json())
        case .text:
            Terminal.say(result.text())
            Terminal.say(
                String(
                    format: "\n%d simulated users in %.1f s",
                    userCount * result.runs.count
                        * (1 + result.confirmations.count + (result.sensitivity?.draws.count ?? 0)),
                    Date().timeIntervalSince(started)) + (report.map { "; report written to \($0)" } ?? ""))
        }
    }

    /// A metric name, or bad input with the names there are.
    func sweepMetric(_ name: String, flag: String) throws -> SweepMetric {
        if let metric = SweepMetric(name: name, days: days) { return metric }
        Terminal.printError(
            "\(flag) \(name): not a metric of this run (days 1–\(days)); "
                + Suggestion.hint(for: name, in: SweepMetric.names(days: days)))
        throw Exit.badInput
    }

    /// `--sweep key=v1,v2,...`, each key a param the policy declares, once.
    func sweepAxes(for policy: SimulationPolicy) throws -> [SweepAxis] {
        var axes: [SweepAxis] = []
        for text in sweep {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                Terminal.printError("--sweep \(text): write key=value,value,... e.g. --sweep max_soft_prompts=1,2,3")
                throw Exit.badInput
            }
            let key = String(text[..<equals])
            guard policy.defaultParams[key] != nil else {
                let known = policy.defaultParams.keys.sorted()
                Terminal.printError(
                    "--sweep \(key): \(policy.name) declares no such param; "
                        + (known.isEmpty ? "it declares no params" : Suggestion.hint(for: key, in: known)))
                throw Exit.badInput
            }
            guard !axes.contains(where: { $0.param == key }) else {
                Terminal.printError("--sweep \(key): swept twice; give all its values in one --sweep")
                throw Exit.badInput
            }
            let list = String(text[text.index(after: equals)...])
            var values: [PolicyValue] = []
            for item in SweepValues.split(list) {
                guard !item.isEmpty else {
                    Terminal.printError(
                        "--sweep \(key)=\(list): an empty value; separate values with single commas, "
                            + "e.g. \(key)=1,2,3 or \(key)=[1,7],[3,7]")
                    throw Exit.badInput
                }
                do {
                    values.append(try ParamParsing.value(item))
                } catch {
                    Terminal.printError("--sweep \(key): \(error.message)")
                    throw Exit.badInput
                }
            }
            guard Set(values).count == values.count else {
                Terminal.printError("--sweep \(key)=\(list): a value is given twice")
                throw Exit.badInput
            }
            axes.append(SweepAxis(param: key, values: values))
        }
        return axes
    }
}

/// Splits a `--sweep` value list at its top-level commas: `[1,7,30],[3,7,30]` is two lists,
/// `1,2,3` three numbers. Commas inside brackets, braces or JSON strings do not split.
enum SweepValues {
    static func split(_ text: String) -> [String] {
        var items: [String] = [], current = "", depth = 0, inString = false, escaped = false
        for character in text {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "[" || character == "{" {
                depth += 1
            } else if character == "]" || character == "}" {
                depth -= 1
            } else if character == ",", depth == 0 {
                items.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            }
            current.append(character)
        }
        items.append(current.trimmingCharacters(in: .whitespaces))
        return items
    }
}

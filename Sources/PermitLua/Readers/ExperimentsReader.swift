import PermitCore

/// Reads and validates a policy's `experiments` table
/// (`experiments = { first_ask = { quiet = 50, soft = 50 } }`), collecting every problem with
/// the file and the line it is on.
///
/// Why a source scan for lines: the values a chunk returns carry no positions, yet a typo in an
/// experiment must point at its line like any other error. The table is written as literal
/// text, so the line of a name is the first line at or after its parent's that holds the name
/// as a whole word.
enum ExperimentsReader {
    /// The experiments of `value` (the `experiments` field) and the problems found.
    ///
    /// A valid table (the usual case, read at every load of the policy) is read without
    /// scanning the source; the lines are looked up only when there is a problem to place.
    static func read(_ value: LuaValue, source: String, chunkName: String) -> (experiments: [Experiment], problems: [PolicyError]) {
        let read = read(value, lines: nil, chunkName: chunkName)
        guard !read.problems.isEmpty else { return read }
        return self.read(value, lines: SourceLines(source), chunkName: chunkName)
    }

    /// `read`, placing problems on the lines of `lines` (none without it).
    private static func read(
        _ value: LuaValue, lines: SourceLines?, chunkName: String
    ) -> (experiments: [Experiment], problems: [PolicyError]) {
        let top = lines?.line(of: "experiments", from: 1)
        var problems: [PolicyError] = []
        func problem(_ field: String, _ message: String, line: Int?) {
            problems.append(PolicyError(kind: .load, field: field, message: message, file: chunkName, line: line ?? top))
        }
        guard case .table(let table) = value else {
            problem(
                "policy.experiments",
                "expected a table like { first_ask = { quiet = 50, soft = 50 } }, got "
                    + DecisionReader.describe(value), line: top)
            return ([], problems)
        }
        var experiments: [Experiment] = []
        for entry in table.entries {
            guard case .string(let name) = entry.key, Experiment.isValidName(name) else {
                problem(
                    "policy.experiments",
                    "experiment names are identifiers (letters, digits, _; at most 64), got "
                        + DecisionReader.describe(entry.key), line: top)
                continue
            }
            let line = lines?.line(of: name, from: top ?? 1)
            if let experiment = readArms(of: entry.value, experiment: name, lines: lines, line: line, problem: problem) {
                experiments.append(experiment)
            }
        }
        if experiments.count > Experiment.maxExperiments {
            problem(
                "policy.experiments", "\(experiments.count) experiments; a policy may declare at most \(Experiment.maxExperiments)",
                line: top)
        }
        return (experiments.sorted { $0.name < $1.name }, problems)
    }

    /// One experiment's arms, or `nil` (with the problems reported) when they are not valid.
    private static func readArms(
        of value: LuaValue, experiment name: String, lines: SourceLines?, line: Int?,
        problem: (String, String, Int?) -> Void
    ) -> Experiment? {
        let field = "policy.experiments.\(name)"
        guard case .table(let armsTable) = value else {
            problem(
                field,
                "expected a table of arms and their weights like { quiet = 50, soft = 50 }, got "
                    + DecisionReader.describe(value), line)
            return nil
        }
        var arms: [Experiment.Arm] = []
        var valid = true
        for arm in armsTable.entries {
            guard case .string(let armName) = arm.key, Experiment.isValidName(armName) else {
                problem(
                    field,
                    "arm names are identifiers (letters, digits, _; at most 64), got "
                        + DecisionReader.describe(arm.key), line)
                valid = false
                continue
            }
            let armLine = lines?.line(of: armName, from: line ?? 1) ?? line
            guard case .integer(let weight) = arm.value, (1...Int64(Experiment.maxWeight)).contains(weight) else {
                problem(
                    "\(field).\(armName)",
                    "a weight is a whole number from 1 to \(Experiment.maxWeight), got "
                        + DecisionReader.describe(arm.value) + "; remove an arm instead of giving it 0", armLine)
                valid = false
                continue
            }
            arms.append(Experiment.Arm(name: armName, weight: Int(weight)))
        }
        if valid && arms.isEmpty {
            problem(field, "an experiment needs at least one arm, e.g. { quiet = 50, soft = 50 }", line)
        }
        if arms.count > Experiment.maxArms {
            problem(field, "\(arms.count) arms; an experiment may have at most \(Experiment.maxArms)", line)
            valid = false
        }
        return valid && !arms.isEmpty ? Experiment(name: name, arms: arms) : nil
    }
}

/// A source text's lines, to find where a name is written.
struct SourceLines {
    private let lines: [Substring]

    init(_ source: String) {
        lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The first line (1-based) at or after `start` holding `word` as a whole word, outside a
    /// `--` comment.
    func line(of word: String, from start: Int) -> Int? {
        guard start >= 1, start <= lines.count else { return nil }
        for index in (start - 1)..<lines.count where Self.contains(lines[index], word: word) {
            return index + 1
        }
        return nil
    }

    private static func contains(_ line: Substring, word: String) -> Bool {
        let code = line.range(of: "--").map { line[..<$0.lowerBound] } ?? line
        var rest = code[...]
        while let found = rest.range(of: word) {
            let before = found.lowerBound == code.startIndex ? nil : code[code.index(before: found.lowerBound)]
            let after = found.upperBound == code.endIndex ? nil : code[found.upperBound]
            if !isIdentifier(before), !isIdentifier(after) { return true }
            rest = code[found.upperBound...]
        }
        return false
    }

    private static func isIdentifier(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character == "_" || character.isLetter || character.isNumber
    }
}

import Foundation
import PermitInput

/// One scenario file to run, with the policy it defaults to when it names none.
public struct ScenarioFile: Sendable, Hashable {
    /// The scenario file.
    public var url: URL
    /// The pack's `policy.lua` when the file sits in `<pack>/tests/`.
    public var packPolicy: URL?
    /// The pack's name (its directory), for grouping in reports.
    public var pack: String?
    /// The path as the user should see it (relative to the working directory when possible).
    public var displayPath: String
    /// The line of `file:line` on the command line: it picks the file's scenario, and must lie in the file.
    public var line: Int?
}

/// Finds packs (`<pack>/policy.lua` with `<pack>/tests/*.yaml`) and loose scenario files
/// under the given paths (docs/reference/scenarios.md#packs).
public enum Discovery {
    /// Every scenario under `paths` (packs' `tests/` folders and loose files), sorted so runs are
    /// reproducible; a path that does not exist is an input error naming it.
    public static func scenarios(under paths: [String], fileManager: FileManager = .default) throws(InputError) -> [ScenarioFile] {
        try scenariosAndModels(under: paths, fileManager: fileManager).scenarios
    }

    /// The scenarios under `paths`, and the `permit simulate` model files found beside them in
    /// directories (skipped: a model is no scenario). A model file named on its own is an
    /// input error that says what it is.
    public static func scenariosAndModels(
        under paths: [String], fileManager: FileManager = .default
    ) throws(InputError) -> (scenarios: [ScenarioFile], models: [String]) {
        var found: [ScenarioFile] = []
        var models: [String] = []
        for argument in paths {
            var path = argument
            var line: Int?
            var url = WorkingDirectory.url(for: path).standardizedFileURL
            var isDirectory: ObjCBool = false
            if !fileManager.fileExists(atPath: url.path), let (file, number) = splitLine(argument) {
                path = file
                line = number
                url = WorkingDirectory.url(for: path).standardizedFileURL
            }
            guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw InputError(
                    "\(path): no such file or directory",
                    hint: "give a pack, a directory of packs, a scenario .yaml file, or file.yaml:LINE")
            }
            if line != nil, isDirectory.boolValue || !isScenarioFile(url) {
                throw InputError(
                    "\(argument): a line picks a scenario in a scenario file", hint: "write e.g. policies/polite/tests/first.yaml:12")
            }
            if isDirectory.boolValue {
                found += walk(url, fileManager: fileManager, models: &models)
            } else {
                guard isScenarioFile(url) else {
                    throw InputError("\(path): not a scenario file", hint: "scenario files end in .yaml or .yml")
                }
                if isSimulateModel(url) {
                    throw InputError(
                        "\(path): this is a permit simulate model (it has os_versions, sessions_per_day, ...), not a scenario",
                        hint: "run it with permit simulate POLICY --model \(path)")
                }
                var scenarioFile = file(url, fileManager: fileManager)
                scenarioFile.line = line
                found.append(scenarioFile)
            }
        }
        var seen = Set<URL>()
        var seenModels = Set<String>()
        return (found.filter { seen.insert($0.url).inserted }, models.filter { seenModels.insert($0).inserted })
    }

    /// The top-level keys only a `permit simulate` model has (docs/simulate.md).
    static let modelKeys = ["os_versions", "sessions_per_day", "feature_opens_per_session", "system_dialog"]

    /// Whether a `.yaml` file is a `permit simulate` model: a top-level key only models have,
    /// and no `steps`. Read as lines (a key at the start of a line), so a file that does not
    /// parse is left to the scenario parser, which names its error.
    static func isSimulateModel(_ url: URL) -> Bool {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return false }
        var keys = Set<String>()
        for line in text.split(separator: "\n") {
            guard let first = line.first, first.isLetter || first == "_", let colon = line.firstIndex(of: ":") else { continue }
            keys.insert(String(line[..<colon]).trimmingCharacters(in: .whitespaces))
        }
        return !keys.contains("steps") && modelKeys.contains(where: keys.contains)
    }

    /// `tests/a.yaml:12` → (`tests/a.yaml`, 12); `nil` when there is no `:LINE` suffix.
    static func splitLine(_ argument: String) -> (String, Int)? {
        guard let colon = argument.lastIndex(of: ":"), let number = Int(argument[argument.index(after: colon)...]),
            number > 0
        else { return nil }
        return (String(argument[..<colon]), number)
    }

    /// A `.yaml`/`.yml` file, except `NAME.steps.yaml`: steps that scenarios `include:` are
    /// not a story of their own.
    static func isScenarioFile(_ url: URL) -> Bool {
        ["yaml", "yml"].contains(url.pathExtension.lowercased())
            && url.deletingPathExtension().pathExtension.lowercased() != "steps"
    }

    /// A pack contributes its tests; any other directory is searched for packs and loose files.
    static func walk(_ directory: URL, fileManager: FileManager, models: inout [String]) -> [ScenarioFile] {
        if fileManager.fileExists(atPath: directory.appendingPathComponent("policy.lua").path) {
            let tests = directory.appendingPathComponent("tests")
            var found: [ScenarioFile] = []
            for child in children(of: tests, fileManager: fileManager) where isScenarioFile(child) {
                if isSimulateModel(child) {
                    models.append(displayPath(of: child))
                } else {
                    found.append(file(child, fileManager: fileManager))
                }
            }
            return found
        }
        var found: [ScenarioFile] = []
        for child in children(of: directory, fileManager: fileManager) {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: child.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if !child.lastPathComponent.hasPrefix(".") { found += walk(child, fileManager: fileManager, models: &models) }
            } else if isScenarioFile(child) {
                if isSimulateModel(child) {
                    models.append(displayPath(of: child))
                } else {
                    found.append(file(child, fileManager: fileManager))
                }
            }
        }
        return found
    }

    static func children(of directory: URL, fileManager: FileManager) -> [URL] {
        let names = (try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    static func file(_ url: URL, fileManager: FileManager) -> ScenarioFile {
        let parent = url.deletingLastPathComponent()
        var packPolicy: URL?
        var pack: String?
        if parent.lastPathComponent == "tests" {
            let candidate = parent.deletingLastPathComponent().appendingPathComponent("policy.lua")
            if fileManager.fileExists(atPath: candidate.path) {
                packPolicy = candidate
                pack = parent.deletingLastPathComponent().lastPathComponent
            }
        }
        return ScenarioFile(url: url, packPolicy: packPolicy, pack: pack, displayPath: displayPath(of: url))
    }

    /// The path relative to the working directory (`WorkingDirectory.current`) when it lies
    /// below it, else absolute.
    public static func displayPath(of url: URL) -> String {
        let cwd = WorkingDirectory.current.standardizedFileURL.path
        let path = url.standardizedFileURL.path
        return path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path
    }
}

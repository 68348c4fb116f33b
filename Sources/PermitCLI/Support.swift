import ArgumentParser
import Foundation
import PermitCore
import PermitInput
import PermitLua
import PermitScenario

/// Output choices shared by the verbs.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// The commands' shorthand for the console in effect (`Console.current`).
enum Terminal {
    /// Colour only on a terminal, and never with `NO_COLOR` set (https://no-color.org).
    static var wantsColour: Bool { Console.current.wantsColour }

    /// A problem on standard error, headed `permit:` as every message of the tool is.
    static func printError(_ message: String) {
        Console.current.write("permit: " + message + "\n", to: .error)
    }

    /// One line of the command's result on standard output.
    static func say(_ line: String) {
        Console.current.writeLine(line)
    }

    /// The file a path from the command line names, relative to the working directory
    /// (`WorkingDirectory`), keeping the path as written for messages.
    static func file(_ path: String) -> URL {
        WorkingDirectory.url(for: path)
    }
}

/// Exit codes of docs/reference.md#exit-codes.
enum Exit {
    static let failure = ExitCode(1)
    static let badInput = ExitCode(2)
}

/// Resolves `POLICY_OR_PACK` to the policy file: a `.lua` file, or a pack directory holding one.
func policyURL(_ path: String) throws -> URL {
    let url = Terminal.file(path).standardizedFileURL
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
        Terminal.printError("\(path): no such file or directory")
        throw Exit.badInput
    }
    if isDirectory.boolValue {
        let policy = url.appendingPathComponent("policy.lua")
        guard FileManager.default.fileExists(atPath: policy.path) else {
            Terminal.printError("\(path): a pack directory needs a policy.lua")
            throw Exit.badInput
        }
        return policy
    }
    return url
}

/// Loads a Lua policy, naming it by the path the user wrote; a failure is bad input (exit 2).
func loadPolicy(_ url: URL, limits: LuaLimits = .default) throws -> LuaPolicy {
    do {
        return try LuaPolicy.load(contentsOf: url, displayName: Discovery.displayPath(of: url), limits: limits)
    } catch {
        Terminal.printError(error.description)
        throw Exit.badInput
    }
}

/// The loader `permit test` uses: one fresh VM per scenario, so scenarios cannot leak state.
func luaLoader(coverage: Bool, limits: LuaLimits = .default) -> PolicyLoader {
    { url throws(PolicyError) in
        try LuaPolicy.load(contentsOf: url, displayName: Discovery.displayPath(of: url), limits: limits, coverage: coverage)
    }
}

/// `--time-limit` and `--instruction-budget`: the app's defaults (LuaLimits.default) unless
/// raised, for experiments with heavier policies or slow machines.
struct LimitOptions: ParsableArguments {
    @Option(help: "Wall-clock limit per policy call, in milliseconds (default \(LuaLimits.default.timeLimitMilliseconds)).")
    var timeLimit: Int?

    @Option(help: "Instruction budget per policy call (default \(LuaLimits.default.instructionsPerCall)).")
    var instructionBudget: Int?

    func validate() throws {
        if let timeLimit, timeLimit <= 0 { throw ValidationError("--time-limit must be a positive number of milliseconds") }
        if let instructionBudget, instructionBudget <= 0 { throw ValidationError("--instruction-budget must be positive") }
    }

    var limits: LuaLimits {
        var limits = LuaLimits.default
        if let timeLimit { limits.timeLimitMilliseconds = timeLimit }
        if let instructionBudget { limits.instructionsPerCall = instructionBudget }
        return limits
    }
}

/// Writes an output file whole or not at all; a failure is reported and is bad input (exit 2).
func writeAtomically(_ data: Data, to path: String, permissions: Int? = nil, replacing: Bool = true) throws {
    do {
        try AtomicFile.write(data, to: Terminal.file(path).standardizedFileURL, permissions: permissions, replacing: replacing)
    } catch {
        Terminal.printError("\(path): cannot write (\(error.reason))"
            + (replacing || error.reason != String(cString: strerror(EEXIST)) ? "" : "; refusing to overwrite it (move it away or pick another name)"))
        throw Exit.badInput
    }
}

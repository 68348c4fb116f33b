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

/// Exit codes of docs/reference/cli.md#exit-codes.
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

/// The copy of the pack whose policy is `url` (`copy/<locale>.yaml` beside it), as a policy
/// error naming the copy file and line when a file is wrong.
func packCopy(besidePolicy url: URL) throws(PolicyError) -> PolicyCopy {
    do {
        let shownPack = Discovery.displayPath(of: url.deletingLastPathComponent())
        return try CopyFiles.read(besidePolicy: url, shownPack: shownPack == WorkingDirectory.current.path ? "" : shownPack)
    } catch {
        throw PolicyError(
            kind: .load, field: error.field, message: error.message + (error.hint.map { " (\($0))" } ?? ""),
            file: error.location?.file, line: error.location?.line)
    }
}

/// Loads a Lua policy with its pack's copy, naming it by the path the user wrote; a failure is
/// bad input (exit 2).
func loadPolicy(_ url: URL, limits: LuaLimits = .tool) throws -> LuaPolicy {
    do {
        return try LuaPolicy.load(
            contentsOf: url, displayName: Discovery.displayPath(of: url), limits: limits, copy: try packCopy(besidePolicy: url))
    } catch {
        Terminal.printError(error.description)
        throw Exit.badInput
    }
}

/// The loader `permit test` uses: one fresh VM per scenario, so scenarios cannot leak state.
func luaLoader(coverage: Bool, limits: LuaLimits = .tool) -> PolicyLoader {
    { url throws(PolicyError) in
        try LuaPolicy.load(
            contentsOf: url, displayName: Discovery.displayPath(of: url), limits: limits, coverage: coverage,
            copy: try packCopy(besidePolicy: url))
    }
}

/// `--time-limit` and `--instruction-budget`: the app's defaults (LuaLimits.default, with the
/// tool's deadline margin: `LuaLimits.tool`) unless raised, for experiments with heavier
/// policies or slow machines.
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
        var limits = LuaLimits.tool
        if let timeLimit { limits.timeLimitMilliseconds = timeLimit }
        if let instructionBudget { limits.instructionsPerCall = instructionBudget }
        return limits
    }
}

/// Writes an output file whole or not at all; a failure is reported and is bad input (exit 2).
///
/// A path that names (or links to) a device or a FIFO — `/dev/stdout`, `/dev/null`, a pipe a
/// reader waits on — is written through, never replaced: a rename would put a regular file
/// where the node was (as root, in `/dev`). A directory or socket is refused. With `replacing`
/// false (keys), an existing file is never overwritten.
func writeAtomically(_ data: Data, to path: String, permissions: Int? = nil, replacing: Bool = true) throws {
    let url = Terminal.file(path).standardizedFileURL
    do {
        try OutputPath.checkName(path)
        switch try OutputPath.kind(of: url.path) {
        case .regularOrMissing:
            try AtomicFile.write(data, to: url, permissions: permissions, replacing: replacing)
        case .writeThrough:
            try OutputPath.writeThrough(data, to: url.path)
        }
    } catch let error as AtomicFileError {
        let exists = !replacing && error.reason == String(cString: strerror(EEXIST))
        Terminal.printError(
            "\(TerminalText.inline(path)): cannot write (\(error.reason))"
                + (exists ? "; refusing to overwrite it (move it away or pick another name)" : ""))
        throw Exit.badInput
    } catch let error as OutputPath.Failure {
        Terminal.printError("\(TerminalText.inline(path)): cannot write (\(error.reason))")
        throw Exit.badInput
    }
}

/// What an output path names, for commands that write files.
enum OutputPath {
    /// Why an output path cannot be written.
    struct Failure: Error {
        let reason: String
    }

    enum Kind {
        /// A regular file, or nothing yet: written whole by rename (`AtomicFile`).
        case regularOrMissing
        /// A character device or FIFO: opened and written, never replaced.
        case writeThrough
    }

    /// Refuses a path holding a control character: no file needs one, and the path is
    /// quoted in messages (a newline in it would start a line of its own).
    static func checkName(_ path: String) throws(Failure) {
        guard TerminalText.hasControl(path) else { return }
        throw Failure(reason: "the path holds a control character; choose a name without one")
    }

    /// Refuses an output path that names one of the command's inputs: writing it would destroy
    /// what the output is made from (`simulate --report policy.lua`). Files are compared by
    /// identity (device and inode, links followed), not by spelling, so `./p.lua`, a symbolic
    /// link and a hard link are all caught. Only a regular file can be both: a device or FIFO
    /// output is written through and replaces nothing. `inputs` pairs a label (`--model`) with
    /// a path.
    static func checkNotAnInput(_ path: String, inputs: [(label: String, path: String)]) throws(Failure) {
        var output = stat()
        guard stat(Terminal.file(path).path, &output) == 0, output.st_mode & S_IFMT == S_IFREG else { return }
        for input in inputs {
            var info = stat()
            guard stat(Terminal.file(input.path).path, &info) == 0 else { continue }
            guard info.st_dev == output.st_dev, info.st_ino == output.st_ino else { continue }
            let named = input.path == path ? "" : " (\(TerminalText.inline(input.path)))"
            throw Failure(
                reason: "it is the command's input \(input.label)\(named), which writing would destroy; write the output to another file")
        }
    }

    /// `checkNotAnInput` as a command reports it: the option and path, the reason, exit 2.
    static func refuseInputs(_ option: String, _ path: String?, inputs: [(label: String, path: String)]) throws {
        guard let path else { return }
        do {
            try checkNotAnInput(path, inputs: inputs)
        } catch {
            Terminal.printError("\(option) \(TerminalText.inline(path)): cannot write (\(error.reason))")
            throw Exit.badInput
        }
    }

    /// What `path` names, following symbolic links.
    static func kind(of path: String) throws(OutputPath.Failure) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return .regularOrMissing }
            throw Failure(reason: String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularOrMissing
        case S_IFCHR, S_IFIFO: return .writeThrough
        case S_IFDIR: throw Failure(reason: "it is a directory; give a file path")
        default:
            throw Failure(reason: "it is neither a file, a device nor a FIFO; give a file path")
        }
    }

    /// Writes `data` into the device or FIFO at `path` without replacing it. A FIFO no process
    /// reads is an error, not a wait.
    static func writeThrough(_ data: Data, to path: String) throws(OutputPath.Failure) {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENXIO ? "it is a FIFO that no process is reading" : String(cString: strerror(errno))
            throw Failure(reason: reason)
        }
        defer { close(descriptor) }
        // Blocking again for the writes: a reader that is slower than us is waited for.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw Failure(reason: String(cString: strerror(failure))) }
    }
}

extension LuaLimits {
    /// The `permit` tool's limits: the app's (`LuaLimits.default`: the same instruction budget,
    /// time limit, memory and caps, so a policy the VM stops in an app is stopped here too),
    /// but a deadline margin of a second instead of 5 ms.
    ///
    /// Why: the deadline protects an app's thread from a call stuck in work the VM cannot see,
    /// and it is wall-clock. The tool holds no app's thread, and it runs where machines are
    /// shared (CI runners, a laptop building meanwhile): there a policy's thread can be kept
    /// off the processor for tens of milliseconds in the middle of a load or a call, and the
    /// app's 5 ms margin would fail a healthy policy with a message blaming it. A second past
    /// the time limit still stops a call that is stuck (docs/security.md, "The deadline").
    static let tool: LuaLimits = {
        var limits = LuaLimits.default
        limits.deadlineMarginMilliseconds = toolDeadlineMarginMilliseconds
        return limits
    }()

    /// The tool's deadline margin, in milliseconds.
    static let toolDeadlineMarginMilliseconds = 1000
}

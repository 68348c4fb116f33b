import Foundation
import PermitCore
import PermitInput
import PermitLua

/// What one case did: the CLI's exit (or signal), its error line, and the in-process call time.
struct Outcome {
    var passed: Bool
    var exit: String
    var processSeconds: Double
    var callMilliseconds: Double?
    var error: String

    func line(for attack: Attack) -> String {
        let call = callMilliseconds.map { String(format: "call %7.1f ms", $0) } ?? "call        -  "
        return "\(passed ? "PASS" : "FAIL")  \(attack.attackClass.padding(toLength: 14, withPad: " ", startingAt: 0)) "
            + "\(attack.name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(exit.padding(toLength: 10, withPad: " ", startingAt: 0)) "
            + String(format: "cli %6.2f s  ", processSeconds) + "\(call)  \(error)"
    }
}

enum CaseRunner {
    /// Longest a case's CLI process may run before it counts as hung and is killed.
    static let processTimeout: TimeInterval = 30

    /// The CLI's arguments for a case, its input files written into `directory`; the policy
    /// file when the call is to be timed in-process too.
    static func arguments(for attack: Attack, in directory: URL) -> ([String], URL?) {
        let arguments: [String]
        var policyFile: URL?
        switch attack.input {
        case .policy(let source, let copy):
            let file = directory.appendingPathComponent("policy.lua")
            try? source.write(to: file, atomically: true, encoding: .utf8)
            write(copy, under: directory.appendingPathComponent("copy"))
            policyFile = file
            arguments = ["decide", file.path, "--status", "not_determined", "--event", "app_foreground"]
        case .check(let source):
            let file = directory.appendingPathComponent("policy.lua")
            try? source.write(to: file, atomically: true, encoding: .utf8)
            policyFile = file
            arguments = ["check", file.path]
        case .scenario(let yaml):
            let file = directory.appendingPathComponent("scenario.yaml")
            try? yaml.write(to: file, atomically: true, encoding: .utf8)
            arguments = ["run", "policies/polite", file.path]
        case .played(let policy, let scenario):
            let source = directory.appendingPathComponent("policy.lua")
            try? policy.write(to: source, atomically: true, encoding: .utf8)
            let file = directory.appendingPathComponent("scenario.yaml")
            try? scenario.write(to: file, atomically: true, encoding: .utf8)
            arguments = ["run", source.path, file.path]
        case .history(let ledger, let policy):
            let file = directory.appendingPathComponent("ledger.json")
            try? ledger.write(to: file, atomically: true, encoding: .utf8)
            var policyPath = policy
            if policy.contains("decide") {
                let source = directory.appendingPathComponent("policy.lua")
                try? policy.write(to: source, atomically: true, encoding: .utf8)
                policyPath = source.path
            }
            arguments = ["decide", policyPath, "--status", "not_determined", "--event", "app_launch", "--history", file.path]
        case .fifoOutput:
            let fifo = directory.appendingPathComponent("coverage.fifo")
            mkfifo(fifo.path, 0o600)
            arguments = ["test", "policies/polite/tests/app-clip.yaml", "--coverage-format", "lcov", "--coverage-output", fifo.path]
        case .commands(let files, let runs):
            write(files, under: directory)
            arguments = expanded(runs, in: directory).last ?? []
        }
        return (arguments, policyFile)
    }

    /// Writes each file (a path relative to `folder`, and its text), making its folders.
    static func write(_ files: [String: String], under folder: URL) {
        for (path, text) in files {
            let file = folder.appendingPathComponent(path)
            try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? text.write(to: file, atomically: true, encoding: .utf8)
        }
    }

    /// A `.commands` case's runs with `{dir}` replaced by the case's directory.
    static func expanded(_ runs: [[String]], in directory: URL) -> [[String]] {
        runs.map { $0.map { $0.replacingOccurrences(of: "{dir}", with: directory.path) } }
    }

    static func run(_ attack: Attack, in directory: URL) -> Outcome {
        let (arguments, policyFile) = arguments(for: attack, in: directory)
        if case .commands(_, let runs) = attack.input {
            // Every run but the last prepares the attack; one that fails leaves nothing to judge.
            for prepare in expanded(runs, in: directory).dropLast() {
                let (exit, output, seconds) = runProcess(prepare)
                if exit != "exit 0" {
                    return Outcome(
                        passed: false, exit: exit, processSeconds: seconds, callMilliseconds: nil,
                        error: "preparing: permit \(prepare.first ?? ""): " + String(output.prefix(150)))
                }
            }
        }
        var (exit, output, seconds) = runProcess(arguments)
        if case .fifoOutput = attack.input {
            // Whatever the CLI said, the FIFO must still be one.
            var info = stat()
            let path = directory.appendingPathComponent("coverage.fifo").path
            if stat(path, &info) != 0 || info.st_mode & S_IFMT != S_IFIFO {
                exit = "replaced"
                output += "\nthe FIFO was replaced by a file"
            }
        }
        let errorLine =
            output.split(separator: "\n").first { line in
                let lower = line.lowercased()
                // `permit: FILE:LINE: ...` is how the CLI reports bad input, whatever the words.
                return lower.hasPrefix("permit:") || lower.contains("error") || lower.contains("refused")
                    || lower.contains("excessive")
            }.map { String($0).trimmingCharacters(in: .whitespaces) } ?? "(no error reported)"
        let matched = attack.expected.contains { errorLine.lowercased().contains($0.lowercased()) }
        var outcome = Outcome(
            passed: exit.hasPrefix("exit") && matched, exit: exit, processSeconds: seconds, callMilliseconds: nil,
            error: String(errorLine.prefix(150)))
        if !matched, exit.hasPrefix("exit") { outcome.error = "not the expected error: " + outcome.error }
        // The CLI did not crash: time the policy call itself in-process.
        if outcome.passed, let policyFile {
            let (milliseconds, typed) = timeCall(policyFile)
            outcome.callMilliseconds = milliseconds
            if let milliseconds, milliseconds > allowedMilliseconds { outcome.passed = false }
            if !typed { outcome.passed = false }
        }
        return outcome
    }

    /// Loads the policy with the default limits and times one decide call, or the load when it
    /// failed (loading runs the main chunk under the same limits: the typed outcome of a
    /// load-time case). `typed`: it ended in a PolicyError.
    static func timeCall(_ file: URL) -> (Double?, Bool) {
        var loaded: Result<LuaPolicy, PolicyError>?
        let loadTime = ContinuousClock().measure {
            // The copy beside it, as `permit decide` reads it; a copy refused when read is a
            // typed outcome too (the CLI said so), with nothing left to time.
            guard let copy = try? CopyFiles.read(besidePolicy: file, shownPack: "") else { return }
            do throws(PolicyError) { loaded = .success(try LuaPolicy.load(contentsOf: file, limits: limits, copy: copy)) } catch {
                loaded = .failure(error)
            }
        }
        guard case .success(let policy) = loaded else { return (milliseconds(loadTime), true) }
        let version = try! OSVersion(parsing: "16.4")
        let context = PolicyContext(
            event: .appForeground, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            params: [:], now: 1_767_600_000, locale: "en", userBucket: 1)
        let clock = ContinuousClock()
        var typed = false
        let elapsed = clock.measure {
            do { _ = try policy.decide(context) } catch { typed = true }
        }
        return (milliseconds(elapsed), typed)
    }

    static func milliseconds(_ elapsed: Duration) -> Double {
        Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    static func runProcess(_ arguments: [String]) -> (String, String, Double) {
        let process = Process()
        process.executableURL = permitBinary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let start = Date()
        do { try process.run() } catch { return ("not run", "\(error)", 0) }
        let collected = OutputCollector(pipe)
        let deadline = start.addingTimeInterval(processTimeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        var killed = false
        if process.isRunning {
            process.terminate()
            killed = true
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        let output = collected.text()
        if killed { return ("killed", "hung past \(Int(processTimeout)) s; " + output, seconds) }
        if process.terminationReason == .uncaughtSignal { return ("signal \(process.terminationStatus)", output, seconds) }
        return ("exit \(process.terminationStatus)", output, seconds)
    }
}

/// Reads a pipe to its end on its own thread (a full pipe would block the child).
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            let all = handle.readDataToEndOfFile()
            lock.withLock { data = all }
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return lock.withLock { String(decoding: data, as: UTF8.self) }
    }
}

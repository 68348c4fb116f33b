import Foundation

/// What a finished child process left: its exit status and both output streams.
public struct ProcessResult: Sendable {
    /// The exit status (or the signal number when it was killed).
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Whether the watchdog had to kill the process.
    public var timedOut: Bool

    /// A result built by hand, for a command run in-process that answers like a child.
    ///
    /// - Parameters:
    ///   - status: the exit status.
    ///   - stdout: what went to standard output.
    ///   - stderr: what went to standard error.
    ///   - timedOut: whether a watchdog stopped it.
    public init(status: Int32, stdout: String, stderr: String, timedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.timedOut = timedOut
    }
}

/// Runs an executable to completion and collects its output.
///
/// Why this shape: both pipes are drained at the same time, each on its own thread. Reading
/// one to its end and then the other deadlocks as soon as the child fills the pipe nobody
/// reads (64 KiB on Linux): the child blocks writing, the reader waits for an end that never
/// comes. A watchdog kills a child still running after `limit`, so a hang fails the test
/// (`timedOut`, a signal status) instead of stopping the suite.
///
/// The waiting happens on a thread of its own, never on the caller's: a test is async, and a
/// blocking wait on one of Swift's cooperative threads (two on two cores, shared by every test
/// running at once) holds that thread for as long as the child runs. Two launches of a few
/// seconds each, slower on a loaded machine, then leave no thread at all to the other tests of
/// the process, whose async work stalls until the launches end (a 200-event test that takes a
/// second alone once timed out after 300 s in the full suite this way).
public func runProcess(
    _ executable: URL, _ arguments: [String], in directory: URL? = nil,
    environment: [String: String] = [:], limit: TimeInterval = 300
) async throws -> ProcessResult {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(
                with: Result {
                    try runProcessBlocking(executable, arguments, in: directory, environment: environment, limit: limit)
                })
        }.start()
    }
}

/// `runProcess`'s work, blocking the calling thread until the child ends.
private func runProcessBlocking(
    _ executable: URL, _ arguments: [String], in directory: URL?, environment: [String: String], limit: TimeInterval
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()

    let stdout = PipeDrain(out.fileHandleForReading)
    let stderr = PipeDrain(err.fileHandleForReading)
    let watchdog = Watchdog(process, limit: limit)
    let outData = stdout.wait(), errData = stderr.wait()
    process.waitUntilExit()
    let timedOut = watchdog.stop()
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self), timedOut: timedOut)
}

/// Kills a process still running after its limit, and remembers that it did.
private final class Watchdog: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    // Guarded by `lock`.
    private var fired = false

    init(_ process: Process, limit: TimeInterval) {
        Thread { [self] in
            guard finished.wait(timeout: .now() + limit) == .timedOut else { return }
            lock.withLock { fired = true }
            process.terminate()
        }.start()
    }

    /// Ends the watch; `true` when the watchdog killed the process.
    func stop() -> Bool {
        finished.signal()
        return lock.withLock { fired }
    }
}

/// Reads one pipe to its end on a thread of its own.
private final class PipeDrain: @unchecked Sendable {
    // Written once by the reading thread before `done` is signalled, read after the wait.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// An executable of this package (`permit`) as the build left it, next to
/// the test bundle: the tests that need a real process launch it from there.
public func builtExecutable(named name: String) -> URL {
    var directory = Bundle.main.bundleURL
    for _ in 0..<4 where !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
        directory = directory.deletingLastPathComponent()
    }
    return directory.appendingPathComponent(name)
}

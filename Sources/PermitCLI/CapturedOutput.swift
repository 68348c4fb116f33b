import Foundation

/// What a command run on a capturing console wrote: both streams, kept apart.
///
/// Thread-safe: a command may write from child tasks (`permit simulate`'s warnings), so both
/// strings sit behind one lock.
public final class CapturedOutput: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var output = ""
    // Guarded by `lock`.
    private var error = ""

    /// An empty capture.
    public init() {}

    /// Everything written to standard output so far.
    public var standardOutput: String { lock.withLock { output } }

    /// Everything written to standard error so far.
    public var standardError: String { lock.withLock { error } }

    /// Appends `text` to one stream.
    func append(_ text: String, to stream: Console.Stream) {
        lock.withLock {
            switch stream {
            case .output: output += text
            case .error: error += text
            }
        }
    }
}

extension Console {
    /// A console that collects what is written instead of printing it, as a pipe would.
    ///
    /// It answers like the two pipes a test gives a child process: neither stream is a
    /// terminal (no colour, no progress bar), and help wraps at `COLUMNS` or 80, as
    /// ArgumentParser does when it cannot ask a terminal.
    ///
    /// - Parameters:
    ///   - output: where the text goes.
    ///   - environment: the environment the command sees.
    ///   - workingDirectory: where relative paths resolve and display paths are relative to.
    /// - Returns: the console.
    public static func capturing(
        into output: CapturedOutput, environment: [String: String], workingDirectory: URL
    ) -> Console {
        Console(
            environment: environment, workingDirectory: workingDirectory,
            columns: environment["COLUMNS"].flatMap { Int($0) } ?? 80,
            isTerminal: { _ in false },
            write: { stream, text in output.append(text, to: stream) })
    }
}

import Foundation
import PermitCore
import PermitInput

/// Where a command's output goes, and what it may know of the terminal and the environment.
///
/// Every line `permit` prints goes through the console in effect (`Console.current`), never
/// straight to the process's file descriptors, so the same commands run in the `permit`
/// executable (`Console.standard`) and inside a test process (`Console.capturing`), where
/// many run at once and each must keep its own output, environment and working directory.
///
/// Why a task-local (`current`) rather than a parameter: the commands are ArgumentParser
/// types whose `run()` takes no arguments, and the output calls sit deep in helpers
/// (`policyURL`, `loadPolicy`, the progress bar). A task-local reaches all of them without
/// threading a console through every signature, and child tasks inherit it.
public struct Console: Sendable {
    /// One of the two output streams.
    public enum Stream: Sendable {
        /// Standard output: reports and results.
        case output
        /// Standard error: problems, warnings and progress.
        case error
    }

    /// Writes text (already ending in a newline where one is meant) to a stream.
    private let sink: @Sendable (Stream, String) -> Void
    /// Whether a stream is a terminal, asked at the moment colour or progress is decided.
    private let terminal: @Sendable (Stream) -> Bool

    /// The environment the command sees (`NO_COLOR`, `COLUMNS`).
    public let environment: [String: String]

    /// The directory relative paths resolve against; `nil` is the process's working directory.
    public let workingDirectory: URL?

    /// The width ArgumentParser wraps help at; `nil` lets it ask the terminal.
    public let columns: Int?

    /// A console writing and answering through the given closures.
    ///
    /// - Parameters:
    ///   - environment: the environment the command sees.
    ///   - workingDirectory: where relative paths resolve; `nil` for the process's directory.
    ///   - columns: the help width; `nil` to ask the terminal.
    ///   - isTerminal: whether a stream is a terminal.
    ///   - write: writes text to a stream.
    public init(
        environment: [String: String], workingDirectory: URL?, columns: Int?,
        isTerminal: @escaping @Sendable (Stream) -> Bool, write: @escaping @Sendable (Stream, String) -> Void
    ) {
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.columns = columns
        self.terminal = isTerminal
        self.sink = write
    }

    /// The process's own standard output and error, its environment and working directory.
    ///
    /// Writes go straight to the file descriptor, unbuffered: under `permit test --watch` a
    /// report must show as the run ends, not when a pipe's buffer fills.
    public static let standard = Console(
        environment: ProcessInfo.processInfo.environment, workingDirectory: nil, columns: nil,
        isTerminal: { isatty($0 == .output ? STDOUT_FILENO : STDERR_FILENO) != 0 },
        write: { stream, text in
            (stream == .output ? FileHandle.standardOutput : FileHandle.standardError).write(Data(text.utf8))
        })

    /// The console the running command writes to: `standard` unless a caller binds another.
    @TaskLocal public static var current: Console = .standard

    /// Writes `text`, escaped for a terminal (`TerminalText.escaped`): every text `permit`
    /// prints passes here, so no policy, scenario or argument can put a control character,
    /// escape sequence or bidirectional override on the terminal. JSON stays valid JSON.
    ///
    /// - Parameters:
    ///   - text: the text, with any newline it needs.
    ///   - stream: standard output or standard error.
    public func write(_ text: String, to stream: Stream) {
        sink(stream, TerminalText.escaped(text))
    }

    /// Writes one line (a newline is added) to standard output, escaped like `write`.
    ///
    /// - Parameter line: the line without its newline.
    public func writeLine(_ line: String) {
        sink(.output, TerminalText.escaped(line) + "\n")
    }

    /// Writes `text` as is: only for the console's own control characters (the progress bar's
    /// carriage returns), never for text that holds input.
    func writeControl(_ text: String, to stream: Stream) {
        sink(stream, text)
    }

    /// Whether `stream` is a terminal: progress bars and colour only go to one.
    ///
    /// - Parameter stream: the stream asked about.
    /// - Returns: `true` on a terminal.
    public func isTerminal(_ stream: Stream) -> Bool {
        terminal(stream)
    }

    /// Colour on standard output: only on a terminal, and never with `NO_COLOR` set
    /// (https://no-color.org).
    public var wantsColour: Bool {
        isTerminal(.output) && environment["NO_COLOR"] == nil
    }
}

import Foundation

/// The directory relative paths people write resolve against, and display paths are shown
/// relative to: the process's working directory, unless a caller binds another one.
///
/// Why a task-local and not the process's `chdir`: the `permit` commands also run inside the
/// test process (PermitCLI's `Console` carries a directory), where many run at once and the
/// working directory is one for the whole process. A task-local reaches every library function
/// the command calls (task groups inherit it) without a parameter on each of them; code that
/// binds none sees exactly the process's directory, as before.
public enum WorkingDirectory {
    /// The directory bound for this task and its child tasks; `nil` means the process's.
    @TaskLocal public static var bound: URL?

    /// The directory in effect: the bound one, or the process's working directory.
    public static var current: URL {
        bound ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// The file a path names: absolute as written, or relative to `current`.
    ///
    /// The URL keeps the path as written (`relativePath`), as `URL(fileURLWithPath:)` does
    /// with the process's directory, so messages can still show what the user typed.
    ///
    /// - Parameter path: a path from a command line or a file, absolute or relative.
    /// - Returns: a file URL whose `path` is absolute.
    public static func url(for path: String) -> URL {
        guard let bound, !path.hasPrefix("/") else { return URL(fileURLWithPath: path) }
        // As a directory: a base without its trailing slash would resolve `a` beside it, not in it.
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: bound.path, isDirectory: true))
    }
}

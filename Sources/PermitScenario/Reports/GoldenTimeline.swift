import Foundation
import PermitCore
import PermitInput

/// `permit test --snapshot`: each scenario's timeline (its `permit run` text) stored next to it
/// in `__snapshots__/FILE.snap`, so a policy change is reviewed as a diff of what users see
/// (docs/reference/cli.md#snapshots).
public enum GoldenTimeline {
    /// Compare with the stored timelines, or rewrite them.
    public enum Mode: Sendable {
        /// Fail on a difference, and on a missing snapshot (nothing is written).
        case check
        /// Write every timeline, creating missing snapshots.
        case update
        /// Fail on a difference from a stored snapshot; a scenario without one is not compared
        /// (`permit bundle`: a pack need not keep snapshots, but those it keeps must hold).
        case checkStored
    }

    /// What became of one scenario's snapshot.
    public enum Outcome: Sendable, Equatable {
        /// The stored timeline equals this run's.
        case matched(path: String)
        /// `--update` wrote it (`created` when there was none).
        case written(path: String, created: Bool)
        /// None is stored and `--update` was not given.
        case missing(path: String)
        /// This run's timeline differs: the unified diff from the stored one.
        case differs(path: String, diff: String)
        /// The file could not be read or written.
        case unusable(path: String, reason: String)

        /// Whether it fails the scenario.
        public var failed: Bool {
            switch self {
            case .matched, .written: false
            case .missing, .differs, .unusable: true
            }
        }

        /// What to tell the user, without the diff.
        public var summary: String {
            switch self {
            case .matched(let path): "snapshot \(path) matches"
            case .written(let path, let created): "snapshot \(path) \(created ? "written" : "updated")"
            case .missing(let path): "no snapshot \(path); run `permit test --snapshot --update` to write it"
            case .differs(let path, _):
                "the timeline differs from snapshot \(path) (- stored, + this run); "
                    + "if the change is intended, run `permit test --snapshot --update`"
            case .unusable(let path, let reason): "snapshot \(path): \(reason)"
            }
        }
    }

    /// Where the snapshot of a scenario file lives: `DIR/__snapshots__/NAME.yaml.snap`, or for
    /// one case of a `matrix:` `NAME.yaml.os=9.3,locale=de.snap`, so the cases of one file do
    /// not overwrite each other's timeline. Characters a file name should not hold (a time
    /// zone's `/`, spaces) become `_`.
    public static func url(for scenario: URL, case matrixCase: String? = nil) -> URL {
        var name = scenario.lastPathComponent
        if let matrixCase {
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_=,+")
            name += "." + String(matrixCase.replacingOccurrences(of: ", ", with: ",").map { allowed.contains($0) ? $0 : "_" })
        }
        return scenario.deletingLastPathComponent().appendingPathComponent("__snapshots__").appendingPathComponent(name + ".snap")
    }

    /// The text stored for `result`: its timeline, headed by the scenario's file name (not its
    /// path, so the snapshot does not depend on where `permit test` runs), with the working
    /// directory taken out of any absolute path a message carries.
    public static func text(of result: ScenarioResult, file: ScenarioFile) -> String {
        let timeline = ScenarioTimeline.render(result, file: file.url.lastPathComponent)
        let cwd = WorkingDirectory.current.standardizedFileURL.path
        return cwd == "/" ? timeline : timeline.replacingOccurrences(of: cwd + "/", with: "")
    }

    /// Compares `result`'s timeline with its snapshot, or writes it under `.update`.
    /// `matrixCase` is the scenario's matrix case, if any (see `url(for:case:)`).
    public static func apply(_ mode: Mode, to result: ScenarioResult, file: ScenarioFile, case matrixCase: String? = nil) -> Outcome {
        let url = url(for: file.url, case: matrixCase)
        let path = Discovery.displayPath(of: url)
        let current = text(of: result, file: file)
        let stored: String?
        if FileManager.default.fileExists(atPath: url.path) {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                return .unusable(path: path, reason: "cannot be read as UTF-8 text; delete it and run with --update")
            }
            stored = text
        } else {
            stored = nil
        }
        if stored == current { return .matched(path: path) }
        guard mode == .update else {
            guard let stored else { return .missing(path: path) }
            return .differs(
                path: path,
                diff: LineDiff.unified(
                    old: stored, new: current, oldName: path + " (stored)", newName: file.displayPath + " (this run)"))
        }
        do {
            try AtomicFile.write(Data(current.utf8), to: url, creatingDirectory: true)
        } catch {
            return .unusable(path: path, reason: "cannot write (\(error.reason))")
        }
        return .written(path: path, created: stored == nil)
    }
}

import Foundation
import PermitCore
import PermitDelivery
import PermitInput
import PermitLua
import PermitScenario
import PermitSimulation

/// The playground's work for one pack, apart from HTTP: what each of the page's panels asks
/// for. Every evaluation runs on a copy of the pack holding the page's unsaved text
/// (`ShadowPacks`); only `save` writes to the pack, and only its editable files.
public final class Playground: Sendable {
    /// The pack's folder.
    public let folder: PackFolder
    /// The sandbox's limits for every policy the playground loads (the app's, by default).
    public let limits: LuaLimits
    /// The models a comparison may use, by name: the pack's own, then the shipped ones.
    public let models: [(name: String, text: String)]
    let shadows: ShadowPacks
    let jobs: ComparisonJobs
    let saves = NSLock()

    /// A playground for the pack at `pack`; `models` are offered for comparisons after the
    /// pack's own model files. A comparison is stopped after `comparisonTimeLimit`.
    public init(
        pack: URL, limits: LuaLimits = .default, models: [(name: String, text: String)] = [],
        comparisonTimeLimit: Duration = ComparisonRequest.timeLimit
    ) throws {
        folder = try PackFolder(root: pack)
        self.limits = limits
        jobs = ComparisonJobs(timeLimit: comparisonTimeLimit)
        shadows = try ShadowPacks(folder: folder)
        var found: [(name: String, text: String)] = []
        if let inPack = try? Discovery.scenariosAndModels(under: [folder.root.path]).models {
            for path in inPack {
                if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                    found.append((URL(fileURLWithPath: path).lastPathComponent, text))
                }
            }
        }
        self.models = found + models.filter { model in !found.contains { $0.name == model.name } }
    }

    /// Removes the copies and stops a running comparison.
    public func close() async {
        await jobs.cancelAll()
        shadows.removeAll()
    }

    /// One editable file as the page opens it.
    public struct OpenedFile: Codable, Sendable {
        /// Its path in the pack.
        public var path: String
        /// Its text on disk.
        public var text: String
        /// Its version on disk, which a save must name.
        public var version: String
    }

    /// What the page loads first.
    public struct PackInfo: Codable, Sendable {
        /// The pack's name.
        public var name: String
        /// The editable files.
        public var files: [OpenedFile]
        /// The models a comparison may use.
        public var models: [String]
        /// The packs beside this one, to compare against.
        public var packs: [String]
    }

    /// The pack's name, files, models and neighbours.
    public func info() throws -> PackInfo {
        var files: [OpenedFile] = []
        for path in folder.editableFiles() {
            if let opened = try folder.read(path) {
                files.append(OpenedFile(path: path, text: opened.text, version: opened.version))
            }
        }
        return PackInfo(name: folder.name, files: files, models: models.map(\.name), packs: neighbours())
    }

    /// The packs in the folder above this one (folders holding a policy.lua, links left out).
    func neighbours() -> [String] {
        let parent = folder.root.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        return names.sorted().filter { name in
            guard name != folder.name, !name.hasPrefix(".") else { return false }
            let url = parent.appendingPathComponent(name)
            let values = try? url.resourceValues(forKeys: [.isSymbolicLinkKey, .isDirectoryKey])
            return values?.isDirectory == true && values?.isSymbolicLink != true
                && FileManager.default.fileExists(atPath: url.appendingPathComponent("policy.lua").path)
        }
    }

    func evaluation(_ edits: [String: String]) throws -> PackEvaluation {
        PackEvaluation(try shadows.copy(with: edits), limits: limits)
    }

    /// The scenarios against the edited text.
    public func tests(_ edits: [String: String]) async throws -> PlaygroundReports.Tests {
        try await self.evaluation(edits).tests()
    }

    /// One scenario's timeline against the edited text.
    public func timeline(_ edits: [String: String], scenario: String, locale: String?) async throws -> PlaygroundReports.Timeline {
        try await self.evaluation(edits).timeline(scenario, locale: locale)
    }

    /// One decision against the edited text.
    public func decide(_ edits: [String: String], _ request: TryDecision) async throws -> PlaygroundReports.Decide {
        let evaluation = try self.evaluation(edits)
        return await evaluation.shown {
            await request.decide(policyAt: evaluation.policyURL, displayName: "\(folder.name)/policy.lua", limits: limits)
        }
    }

    /// Every text of the edited policy, by locale.
    public func copy(_ edits: [String: String]) async throws -> PlaygroundReports.Copy {
        let evaluation = try self.evaluation(edits)
        let decisions = await evaluation.scenarioDecisions()
        return await evaluation.shown {
            await CopyTable.table(
                policyAt: evaluation.policyURL, displayName: "\(folder.name)/policy.lua", limits: limits,
                scenarioDecisions: decisions)
        }
    }

    /// The difference between the file on disk and `text`, as a unified diff.
    public func diff(path: String, text: String) throws -> String {
        let disk = try folder.read(path)?.text ?? ""
        return LineDiff.unified(old: disk, new: text, oldName: "\(path) on disk", newName: "\(path) edited")
    }

    /// Saves `text` to `path` if the file on disk is still version `base`.
    public func save(path: String, text: String, base: String) throws -> PackFolder.SaveOutcome {
        saves.lock()
        defer { saves.unlock() }
        return try folder.save(text, to: path, base: base)
    }
}

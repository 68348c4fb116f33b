import Foundation
import PermitCore
import PermitDelivery
import PermitInput
import PermitLua
import PermitScenario
import PermitSimulation

extension Playground {
    /// What a bundle download carries: its bytes and a file name.
    public struct Download: Sendable {
        /// The bundle's bytes.
        public var data: Data
        /// `polite-1767600000.permitbundle`.
        public var fileName: String
    }

    /// The edited pack as an unsigned bundle, as `permit bundle` makes it: PackBundler, gated
    /// on the pack's tests run against the edited text. A failing gate is an error saying why.
    public func bundle(_ edits: [String: String], now: Date = Date()) async throws -> Download {
        let evaluation = try self.evaluation(edits)
        let version = Int64(now.timeIntervalSince1970)
        let output = evaluation.root.appendingPathComponent("\(folder.name)-\(version).permitbundle")
        do {
            _ = try await bundle(evaluation, version: version, to: output, now: now)
        } catch {
            throw PackFolder.PathError(description: "not bundled: \(error.description)")
        }
        let data = try Data(contentsOf: output)
        try? FileManager.default.removeItem(at: output)
        return Download(data: data, fileName: output.lastPathComponent)
    }

    /// `permit bundle`'s work on the copy: the gate runs the pack's tests on the edited text.
    private func bundle(
        _ evaluation: PackEvaluation, version: Int64, to output: URL, now: Date
    ) async throws(PackBundleError) -> PackBundler.Report {
        let limits = limits
        // Relative to the copy's parent, so that messages name `polite/policy.lua`, not the copy's path.
        let pack = URL(
            fileURLWithPath: folder.name, isDirectory: true, relativeTo: URL(fileURLWithPath: evaluation.root.path, isDirectory: true))
        let result: Result<PackBundler.Report, PackBundleError> = await evaluation.shown {
            do throws(PackBundleError) {
                // The bundle carries the pack's copy, as `permit bundle` puts it in.
                let copy: PolicyCopy
                do throws(PolicyError) { copy = try PackEvaluation.copy(besidePolicy: evaluation.policyURL) } catch {
                    throw PackBundleError(.invalidPolicy, error.description)
                }
                let bundler = PackBundler(pack: pack, version: version, copy: copy, limits: limits)
                return .success(
                    try await bundler.bundle(to: output, now: now) { candidate in
                        let files = try Discovery.scenarios(under: [candidate.pack.path])
                        let source = candidate.policySource
                        let copy = candidate.copy
                        let loader: PolicyLoader = { url throws(PolicyError) in
                            try LuaPolicy(source: source, chunkName: Discovery.displayPath(of: url), limits: limits, copy: copy)
                        }
                        let run = await TestRun.run(files, options: TestRun.Options(), loader: loader, delivery: BundleDelivery())
                        return PackBundler.TestSummary(passed: run.passedCount, failed: run.failedCount, unreadable: run.inputErrorCount)
                    })
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The editable files a bundle carries (its policy.lua, and copy files if it has them), to
    /// open in the editor: nothing is written until the user saves. Its signature, if any, is
    /// not checked: the text is only shown and evaluated, in the sandbox, as typed text is.
    public func open(bundle data: Data) throws -> [String: String] {
        let bundle: PolicyBundle
        do { bundle = try PolicyBundle(data: data) } catch {
            throw PackFolder.PathError(description: "not a permit bundle: \(error)")
        }
        var files: [String: String] = [:]
        for (name, bytes) in bundle.files {
            if name == BundleManifest.copyFileName {
                files.merge(try BundleCopyFiles.files(bytes, for: folder)) { _, fromCopy in fromCopy }
                continue
            }
            guard (try? folder.file(name)) != nil || name == "policy.lua" else { continue }
            guard let text = String(data: bytes, encoding: .utf8) else {
                throw PackFolder.PathError(description: "\(name) in the bundle is not UTF-8 text")
            }
            files[name] = text
        }
        guard files["policy.lua"] != nil else {
            throw PackFolder.PathError(description: "the bundle holds no policy.lua")
        }
        return files
    }

    /// Starts comparing the edited policy with the saved one, or with a pack beside this one.
    public func compare(_ edits: [String: String], _ request: ComparisonRequest) async throws -> ComparisonState {
        if let problem = request.problem { throw PackFolder.PathError(description: problem) }
        guard let modelText = models.first(where: { $0.name == request.model })?.text else {
            throw PackFolder.PathError(description: "no model \(request.model); pick one of \(models.map(\.name).joined(separator: ", "))")
        }
        let baselineURL: URL
        let baselineName: String
        if request.against == "saved" {
            baselineURL = folder.root.appendingPathComponent("policy.lua")
            baselineName = "\(folder.name)/policy.lua (saved)"
        } else {
            guard neighbours().contains(request.against) else {
                throw PackFolder.PathError(description: "no pack \(request.against) beside \(folder.name)")
            }
            baselineURL = folder.root.deletingLastPathComponent().appendingPathComponent(request.against)
                .appendingPathComponent("policy.lua")
            baselineName = "\(request.against)/policy.lua"
        }
        let evaluation = try self.evaluation(edits)
        // Each policy with its own pack's copy: the edited copy files, or those on disk beside the baseline.
        let (editedCopy, baselineCopy) = try await evaluation.shown {
            (try PackEvaluation.copy(besidePolicy: evaluation.policyURL), try PackEvaluation.copy(besidePolicy: baselineURL))
        }
        let edited = try SimulationPolicy(
            source: try LuaPolicy.source(contentsOf: evaluation.policyURL), chunkName: "\(folder.name)/policy.lua (edited)",
            limits: limits, copy: editedCopy)
        let baseline = try SimulationPolicy(
            source: try LuaPolicy.source(contentsOf: baselineURL), chunkName: baselineName, limits: limits, copy: baselineCopy)
        let model = try UserModel.parse(modelText, file: request.model)
        let total = request.users * 2 * (1 + request.sensitivity)
        return await jobs.start(total: total) { progress in
            try await ComparisonRun.run(
                edited: edited, baseline: baseline, model: model, modelName: request.model, request: request, progress: progress)
        }
    }

    /// The comparison `id`'s state.
    public func comparison(_ id: Int) async -> ComparisonState? { await jobs.state(id) }

    /// Cancels the comparison `id`.
    public func cancelComparison(_ id: Int) async -> ComparisonState? { await jobs.cancel(id) }

    /// Waits until the last comparison's work has stopped (done, cancelled or timed out).
    public func comparisonSettled() async { await jobs.settled() }
}

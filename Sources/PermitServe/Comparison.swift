import Foundation
import PermitLua
import PermitSimulation

/// "Compare": the edited policy against the saved one (or a pack beside it) on a user model,
/// as `permit simulate A B --model M [--sensitivity N]` runs it: the same Simulation, the same
/// verdict sentences (`SimulationResult.text`) and the same HTML page with its charts
/// (`HTMLReport`). A comparison is bounded (users, days, drawn models, and a wall-clock limit)
/// and cancellable: one runs at a time, and starting one cancels the one before.
public struct ComparisonRequest: Codable, Sendable {
    /// `saved` for the pack's policy.lua on disk, or the name of a pack beside this one.
    public var against: String
    /// The model: a name from the list the page was given.
    public var model: String
    /// Simulated users per policy.
    public var users: Int
    /// Days each user is simulated for.
    public var days: Int
    /// Drawn models for the sensitivity (what the verdict depends on); 0 for none.
    public var sensitivity: Int

    /// The most users per policy a page may ask for.
    public static let maximumUsers = 20_000
    /// The most days.
    public static let maximumDays = 90
    /// The most drawn models.
    public static let maximumSensitivity = 10
    /// The longest a comparison may run before it is stopped.
    public static let timeLimit: Duration = .seconds(180)

    /// Why the request is out of bounds, or nil.
    var problem: String? {
        if !(1...Self.maximumUsers).contains(users) { return "users must be from 1 to \(Self.maximumUsers)" }
        if !(1...Self.maximumDays).contains(days) { return "days must be from 1 to \(Self.maximumDays)" }
        if !(0...Self.maximumSensitivity).contains(sensitivity) {
            return "drawn models must be from 0 to \(Self.maximumSensitivity)"
        }
        return nil
    }
}

/// The state of the comparison the page started.
public struct ComparisonState: Codable, Sendable {
    /// The job's id.
    public var id: Int
    /// `running`, `done`, `failed`, `cancelled`.
    public var state: String
    /// Users simulated so far, of `total`.
    public var done: Int
    /// Users to simulate in all.
    public var total: Int
    /// `permit simulate`'s text report (the verdicts first), when done.
    public var text: String?
    /// `permit simulate --report`'s page, when done.
    public var html: String?
    /// What went wrong, when it failed.
    public var message: String?
}

/// The one comparison that may run, its progress and its result.
actor ComparisonJobs {
    private var current: ComparisonState?
    private var task: Task<Void, Never>?
    /// How long a comparison may run before it is stopped.
    let timeLimit: Duration

    /// Jobs stopped after `timeLimit` (`ComparisonRequest.timeLimit` for the page).
    init(timeLimit: Duration = ComparisonRequest.timeLimit) {
        self.timeLimit = timeLimit
    }

    /// Starts `run` as a new job, cancelling the running one; its id.
    func start(
        total: Int, _ run: @escaping @Sendable (@escaping @Sendable (Int) -> Void) async throws -> (String, String)
    ) -> ComparisonState {
        task?.cancel()
        let id = (current?.id ?? 0) + 1
        let state = ComparisonState(id: id, state: "running", done: 0, total: total)
        current = state
        task = Task { [timeLimit] in
            let outcome: Result<(String, String), any Error> = await Self.bounded(by: timeLimit) {
                let report: @Sendable (Int) -> Void = { done in Task { await self.progress(id, done) } }
                return try await JobThreads.simulation.run { try await run(report) }
            }
            self.finish(id, outcome)
        }
        return state
    }

    /// Runs `body`, cancelling it when it takes longer than `limit`.
    private static func bounded(
        by limit: Duration, _ body: @escaping @Sendable () async throws -> (String, String)
    ) async -> Result<(String, String), any Error> {
        await withTaskGroup(of: Result<(String, String), any Error>?.self) { group in
            group.addTask {
                do { return .success(try await body()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return Task.isCancelled ? nil : .failure(ComparisonTimeout(limit: limit))
            }
            var first: Result<(String, String), any Error>?
            while let next = await group.next() {
                if let next {
                    first = next
                    break
                }
            }
            group.cancelAll()
            return first ?? .failure(CancellationError())
        }
    }

    private func progress(_ id: Int, _ done: Int) {
        guard var state = current, state.id == id, state.state == "running" else { return }
        state.done = max(state.done, done)
        current = state
    }

    private func finish(_ id: Int, _ outcome: Result<(String, String), any Error>) {
        guard current?.id == id, current?.state == "running" else { return }
        switch outcome {
        case .success(let (text, html)):
            current?.state = "done"
            let total = current?.total ?? 0
            current?.done = total
            current?.text = text
            current?.html = html
        case .failure(let error as ComparisonTimeout):
            current?.state = "failed"
            current?.message = error.description
        case .failure(is CancellationError):
            current?.state = "cancelled"
        case .failure(let error):
            current?.state = "failed"
            current?.message = "\(error)"
        }
    }

    /// Cancels job `id` if it runs.
    func cancel(_ id: Int) -> ComparisonState? {
        guard current?.id == id else { return current }
        if current?.state == "running" {
            task?.cancel()
            current?.state = "cancelled"
        }
        return current
    }

    /// Cancels whatever runs (the server stops).
    func cancelAll() {
        task?.cancel()
    }

    /// Waits until the last job's work has stopped (finished, or wound down after a cancel or
    /// the time limit): a cancelled comparison must leave no simulation running.
    func settled() async {
        await task?.value
    }

    /// The state of job `id`.
    func state(_ id: Int) -> ComparisonState? {
        current?.id == id ? current : nil
    }
}

/// A comparison that ran past its time limit (`ComparisonRequest.timeLimit` for the page).
struct ComparisonTimeout: Error, CustomStringConvertible {
    let limit: Duration

    var description: String {
        "stopped after \(limit.components.seconds) s: ask for fewer users, days or drawn models"
    }
}

/// The comparison itself: both policies on the same users, the verdicts, the page.
enum ComparisonRun {
    static func run(
        edited: SimulationPolicy, baseline: SimulationPolicy, model: UserModel, modelName: String, request: ComparisonRequest,
        progress: @escaping @Sendable (Int) -> Void
    ) async throws -> (String, String) {
        let options = SimulationOptions(users: request.users, days: request.days, seed: 1)
        let perRun = request.users * 2
        let policies = [baseline, edited]
        let result = await Simulation.run(policies: policies, model: model, options: options) { done, _ in progress(done) }
        try Task.checkCancellation()
        var drawn: SensitivityResult?
        if request.sensitivity > 0 {
            drawn = await Sensitivity.run(
                policies: policies, model: model, options: options, draws: request.sensitivity, base: result
            ) { done, _ in progress(perRun + done) }
            try Task.checkCancellation()
        }
        return (
            result.text(sensitivity: drawn), HTMLReport.render(result, modelFile: modelName, sensitivity: drawn)
        )
    }
}

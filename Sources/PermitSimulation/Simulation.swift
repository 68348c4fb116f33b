import Foundation
import PermitCore
import PermitLua
import PermitSimulator

/// A policy to simulate: its source text, the name errors use for it, and the name it gives
/// itself. Each block of users runs it in a fresh VM, so the source is kept, not a loaded policy.
/// (PermitDelivery's `PolicySource` is something else: the policy an app serves from bundles.)
public struct SimulationPolicy: Sendable {
    /// The policy file's text, loaded again in each block's VM.
    public let source: String
    /// The path as the user wrote it (errors and reports name the policy by it).
    public let chunkName: String
    /// The policy's own `name`, read when the source was checked.
    public let name: String
    /// The features it names (its `features` param, literals compared with `ctx.event.feature`),
    /// to warn when the model never opens them; read with the run's params (`with(params:)`),
    /// so a `--param` that changes the features is what the warning checks.
    public private(set) var namedFeatures: [String]
    /// The events it names (literals compared with `ctx.event.name`), to warn when the
    /// simulation never sends them.
    public let namedEvents: [String]
    /// The budgets each of its calls runs under, in every block's VM.
    public let limits: LuaLimits
    /// The pack's copy, which every block's VM reads with `permit.copy`.
    public let copy: PolicyCopy
    /// The experiments it declares, for the per-arm breakdown.
    public let experiments: [Experiment]
    /// The app events of its own it declares (`events = { ... }`).
    public var declaredEvents: [String] { checker.declaredEvents }
    /// The params it declares, with their defaults.
    public let defaultParams: [String: PolicyValue]
    /// Overrides of its params for this run (`--param`), checked by `with(params:)`.
    public private(set) var params: [String: PolicyValue] = [:]

    /// Checks the source in the sandbox (the same errors as every other verb: syntax, shape)
    /// and keeps it. This is the run's one compile besides each block's own VM.
    /// The run's VMs have no deadline thread (`LuaLimits.deadlineMarginMilliseconds` is nil):
    /// a simulation makes millions of calls off any app's thread, and each would pay the
    /// hand-over between threads (docs/performance.md, "The deadline's cost"); the VM's own
    /// checks bound every call as before.
    public init(source: String, chunkName: String, limits: LuaLimits = .default, copy: PolicyCopy = .empty) throws(PolicyError) {
        var limits = limits
        limits.deadlineMarginMilliseconds = nil
        let policy = try LuaPolicy(source: source, chunkName: chunkName, limits: limits, copy: copy)
        self.copy = copy
        name = policy.name
        namedFeatures = PolicyNames.features(source: source, defaultParams: policy.defaultParams)
        namedEvents = PolicyNames.events(source: source)
        experiments = policy.experiments
        defaultParams = policy.defaultParams
        checker = policy
        self.source = source
        self.chunkName = chunkName
        self.limits = limits
    }

    /// The loaded policy, kept only to check params against (each block loads its own VM).
    private let checker: LuaPolicy

    /// The policy run with `params` over its defaults; an unknown name or another type is an
    /// error with a suggestion, as for every other verb.
    public func with(params: [String: PolicyValue]) throws(PolicyError) -> SimulationPolicy {
        try checker.validate(params: params)
        var copy = self
        copy.params = params
        copy.namedFeatures = PolicyNames.features(source: source, defaultParams: defaultParams.merging(params) { $1 })
        return copy
    }

    /// Reads the file once (refusing bytecode and non-UTF-8 text) and checks it.
    public static func load(
        contentsOf url: URL, displayName: String? = nil, limits: LuaLimits = .default, copy: PolicyCopy = .empty
    ) throws(PolicyError) -> SimulationPolicy {
        let name = displayName ?? url.path
        return try SimulationPolicy(
            source: try LuaPolicy.source(contentsOf: url, displayName: name), chunkName: name, limits: limits, copy: copy)
    }
}

/// How big a run is, and how it is seeded.
public struct SimulationOptions: Sendable, Hashable {
    /// How many users.
    public var users: Int
    /// How many days.
    public var days: Int
    /// The seed: the same seed gives the same result, whatever the workers.
    public var seed: UInt64
    /// Concurrent workers, each with its own VM; the result does not depend on it.
    public var workers: Int

    /// Users per block of work. Fixed (never derived from the worker count) so a policy that
    /// uses `math.random` sees the same VM seed for the same users whatever the parallelism.
    public static let blockSize = 250

    /// Options; `workers` defaults to the processor count.
    public init(users: Int = 10_000, days: Int = 30, seed: UInt64 = 1, workers: Int? = nil) {
        self.users = users
        self.days = days
        self.seed = seed
        self.workers = max(1, workers ?? ProcessInfo.processInfo.activeProcessorCount)
    }
}

extension UserModel {
    /// The model's app events that `policy` declares: the ones its users send to it.
    func appEvents(declaredBy policy: SimulationPolicy) -> [ModelEvent] {
        appEvents.filter { policy.declaredEvents.contains($0.name) }
    }
}

/// Runs a simulated population through policies and compares them.
public enum Simulation {
    /// Runs `options.users` users for `options.days` days through each policy. The work is cut
    /// into fixed blocks of users; each block gets a VM on whichever worker takes it, and block
    /// tallies merge in block order, so the result is the same for a seed whatever the number
    /// of workers. On that VM each user's policy starts over at each of their cold launches
    /// (`LuaPolicy.restart`, seeded from the user's own stream): no policy state passes from
    /// one user to another, or depends on which users share a block.
    ///
    /// - Parameters:
    ///   - policies: the policies to compare, each run on the same users.
    ///   - model: who the users are and how they behave (`UserModel`).
    ///   - options: how many users and days, the seed, the workers.
    ///   - pairedDays: the days on which each user's state is kept for paired comparisons
    ///     (one byte per user, day and policy); `nil`: the reported days (1, 7 and the last).
    ///   - records: where the users' decision records go (`permit simulate --records`), or `nil`
    ///     to build none; call its `finish` after the run.
    ///   - progress: called with (users done, users in all) as blocks finish.
    ///   - processes: what each block's users run, given what they would run (the block's VM,
    ///     started over at each process): a tool wraps it to observe or time every call (the
    ///     benchmarks record the calls their minimal host replays). `nil`: the VM itself.
    ///
    /// Cancelling the calling task stops the run after the blocks under way: the result then
    /// counts only the users who ran, and a caller that cancelled must discard it. The workers
    /// run where the caller's task runs: a host that must keep its cooperative pool free while
    /// a run lasts (the playground's server) calls it inside `JobThreads.simulation.run`.
    public static func run(
        policies: [SimulationPolicy], model: UserModel, options: SimulationOptions, pairedDays: [Int]? = nil,
        records: RecordLog? = nil, progress: (@Sendable (Int, Int) -> Void)? = nil,
        processes: (@Sendable (any PolicyPerProcess) -> any PolicyPerProcess)? = nil
    ) async -> SimulationResult {
        let kept = (pairedDays ?? SimulationResult.reportedDays(days: options.days)).filter { (1...options.days).contains($0) }
        let keptDays = kept.enumerated().filter { !kept[..<$0.offset].contains($0.element) }.map(\.element)
        let blocks = (options.users + SimulationOptions.blockSize - 1) / SimulationOptions.blockSize
        let jobs = policies.indices.flatMap { policy in (0..<blocks).map { Job(policy: policy, block: $0) } }
        let next = Locked(0)
        let done = Locked((users: 0, tallies: [Job: Tally]()))
        let total = options.users * policies.count
        let started = Date()

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<min(options.workers, max(1, jobs.count)) {
                group.addTask {
                    while true {
                        let index: Int = next.withLock { value in
                            defer { value += 1 }
                            return value
                        }
                        // A cancelled run (the playground's Cancel) takes no further block; its
                        // caller sees the cancellation and discards the partial result.
                        guard index < jobs.count, !Task.isCancelled else { return }
                        let job = jobs[index]
                        let tally = await runBlock(
                            job, policy: policies[job.policy], model: model, options: options, keptDays: keptDays,
                            records: records, processes: processes)
                        let finished = done.withLock { state in
                            state.tallies[job] = tally
                            state.users += tally.users
                            return state.users
                        }
                        progress?(finished, total)
                    }
                }
            }
        }

        let tallies = done.current.tallies
        let results: [PolicyResult] = policies.indices.map { policy in
            var tally = Tally(days: options.days)
            for block in 0..<blocks { tally.merge(tallies[Job(policy: policy, block: block)] ?? Tally(days: options.days)) }
            return PolicyResult(
                name: policies[policy].name, file: policies[policy].chunkName, days: options.days, tally: tally,
                outcomeDays: keptDays)
        }
        return SimulationResult(
            model: model.name, users: options.users, days: options.days, seed: options.seed, policies: results,
            warnings: SimulationWarning.check(policies: policies, results: results, model: model),
            elapsedSeconds: Date().timeIntervalSince(started))
    }

    struct Job: Hashable, Sendable {
        let policy: Int
        let block: Int
    }

    private static func runBlock(
        _ job: Job, policy: SimulationPolicy, model: UserModel, options: SimulationOptions, keptDays: [Int],
        records: RecordLog?, processes wrap: (@Sendable (any PolicyPerProcess) -> any PolicyPerProcess)?
    ) async
        -> Tally
    {
        var tally = Tally(days: options.days)
        let first = job.block * SimulationOptions.blockSize
        let last = min(options.users, first + SimulationOptions.blockSize)
        var seeder = SplitMix64.stream(seed: options.seed ^ 0x5EED_B10C, index: UInt64(job.block))
        let vm: LuaPolicy
        do {
            vm = try LuaPolicy(
                source: policy.source, chunkName: policy.chunkName, limits: policy.limits, randomSeed: seeder.next(),
                copy: policy.copy)
        } catch {
            // It loaded before the run; only a resource failure can get here. Count it, do not crash.
            tally.users = last - first
            tally.outcomes = Array(repeating: ReachCounts.notInstalledCode, count: (last - first) * keptDays.count)
            tally.errors[error.kind.rawValue, default: 0] += last - first
            tally.firstError = error.description
            return tally
        }
        let events = model.appEvents(declaredBy: policy)
        let experiments = policy.experiments.map(\.name)
        tally.outcomes.reserveCapacity((last - first) * keptDays.count)
        let restarted = RestartedVM(vm: vm)
        let processes = wrap?(restarted) ?? restarted
        for index in first..<last {
            var user = UserSimulation(
                index: index, seed: options.seed, model: model, policy: vm, processes: processes, days: options.days,
                params: policy.params, appEvents: events)
            if records != nil { user.records = [] }
            await user.run()
            if let records, let logged = user.records { records.append(logged, policy: job.policy, block: job.block) }
            tally.add(user: user.tally, arms: user.arms, experiments: experiments)
            for day in keptDays { tally.outcomes.append(user.tally.reachByDay[day - 1].code) }
            // A user's events never suspend (the engine's actor is free, so calls into it run on
            // this thread): without a yield a block would hold its thread until it ends, and
            // other work sharing the pool (a host's server, other tasks of a test run) would
            // wait that long for every step. One yield a user: 0–3 % (docs/performance.md).
            await Task.yield()
        }
        return tally
    }
}

/// The policy of each simulated process: the block's VM started over (`LuaPolicy.restart`,
/// seeded from the user's process stream). A VM per process would cost a cold start (134 µs) each.
struct RestartedVM: PolicyPerProcess {
    let vm: LuaPolicy

    func policy(processSeed: UInt64) throws(PolicyError) -> any Policy {
        try vm.restart(randomSeed: processSeed)
        return vm
    }

    /// A VM whose main chunk failed to run again has no policy until the next restart: every
    /// call fails with that error (`LuaPolicy.restart`), and the process runs on, as an app
    /// whose policy failed to load does.
    var failedStartPolicy: (any Policy)? { vm }

    /// The VM keeps nothing for the next process: `restart` starts its environment afresh.
    func processEnded() {}

    /// A simulated user's app stores no policy of its own (no bundle updates).
    func appReinstalled() {}
}

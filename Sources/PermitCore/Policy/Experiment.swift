/// One A/B experiment a policy declares (`experiments = { first_ask = { quiet = 50, soft = 50 } }`):
/// its name and its arms with their weights.
///
/// Why the core owns it (and not the Lua layer): the assignment is recorded in the ledger and
/// carried in every outcome, for the app's analytics; it must be the same whatever language
/// the policy is written in, and an analytics backend must be able to recompute it.
public struct Experiment: Sendable, Hashable {
    /// One arm and its share.
    public struct Arm: Sendable, Hashable {
        /// The arm's name (`quiet`).
        public let name: String
        /// A positive whole number; an arm's share of new installs is its weight over the sum.
        public let weight: Int

        /// An arm of `weight`.
        public init(name: String, weight: Int) {
            self.name = name
            self.weight = weight
        }
    }

    /// The experiment's name (`first_ask`).
    public let name: String
    /// The arms, sorted by name (bytewise): a Lua table has no order, so the assignment walks
    /// them in this one.
    public let arms: [Arm]

    /// The most experiments a policy may declare, and arms an experiment may have.
    public static let maxExperiments = 32
    /// The most arms one experiment may have.
    public static let maxArms = 32
    /// The greatest weight of one arm (the sum stays far below 2^32, so `position % total` has
    /// no bias worth the name).
    public static let maxWeight = 1_000_000

    /// An experiment of `arms` (at least one, each weight positive); they are sorted by name.
    public init(name: String, arms: [Arm]) {
        precondition(!arms.isEmpty && arms.allSatisfy { $0.weight > 0 }, "an experiment needs arms of positive weight")
        self.name = name
        self.arms = arms.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }

    /// The sum of the weights.
    public var totalWeight: Int { arms.reduce(0) { $0 + $1.weight } }

    /// Whether the experiment has an arm called `name`.
    public func hasArm(_ name: String) -> Bool { arms.contains { $0.name == name } }

    /// The arm a fresh assignment gives `installID`: the point
    /// `ArmAssignment.position(installID:experiment:) % totalWeight` falls in the arms' weights
    /// laid end to end in name order.
    public func arm(forInstall installID: String) -> String {
        var point = Int(ArmAssignment.position(installID: installID, experiment: name) % UInt64(totalWeight))
        for arm in arms {
            if point < arm.weight { return arm.name }
            point -= arm.weight
        }
        return arms[arms.count - 1].name  // unreachable: point < totalWeight
    }

    /// Whether `name` may name an experiment or an arm: a Lua identifier of at most 64 bytes
    /// (so `ctx.user.arms.first_ask` can be written, and analytics keys stay plain).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}

/// How installs are assigned to arms (docs/reference/policy.md#experiments), in one place so the rule
/// and its hash are tested and documented together.
public enum ArmAssignment {
    /// The stable hash an install's arm is drawn from: FNV-1a (64-bit) over the UTF-8 bytes of
    /// the install id, a zero byte and the experiment's name, then one SplitMix64 step on it.
    ///
    /// Why our own: Swift's `Hasher` is seeded per process, so it would move users between
    /// launches; this one is fixed forever, and short enough for an analytics backend to
    /// recompute. Hashing the experiment's name in keeps experiments independent of each other.
    public static func position(installID: String, experiment: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        for byte in installID.utf8 { mix(byte) }
        mix(0)
        for byte in experiment.utf8 { mix(byte) }
        var generator = SplitMix64(seed: hash)
        return generator.next()
    }

    /// The arms an install has under `experiments`, given what it had (`assigned`) and the
    /// host's or scenario's pins:
    /// - a pinned arm wins when the experiment has it;
    /// - an install keeps its arm while the experiment still has that arm (a change of weights
    ///   moves nobody already assigned);
    /// - otherwise (a new experiment, an arm removed) it is assigned afresh under the current
    ///   weights.
    /// Experiments the policy no longer declares are dropped.
    public static func reconcile(
        _ assigned: [String: String], experiments: [Experiment], installID: String, pins: [String: String] = [:]
    ) -> [String: String] {
        var arms: [String: String] = [:]
        for experiment in experiments {
            if let pinned = pins[experiment.name], experiment.hasArm(pinned) {
                arms[experiment.name] = pinned
            } else if let kept = assigned[experiment.name], experiment.hasArm(kept) {
                arms[experiment.name] = kept
            } else {
                arms[experiment.name] = experiment.arm(forInstall: installID)
            }
        }
        return arms
    }

    /// Checks pins (`user.arms` of a scenario, `permit decide --arm`, a host's
    /// `EngineConfiguration.arms`) against the experiments a policy declares; the first
    /// problem, worded with a suggestion, or `nil`.
    public static func problem(withPin experiment: String, arm: String, in experiments: [Experiment]) -> String? {
        guard let declared = experiments.first(where: { $0.name == experiment }) else {
            let names = experiments.map(\.name)
            let hint = names.isEmpty ? "the policy declares no experiments" : Suggestion.hint(for: experiment, in: names)
            return "the policy has no experiment \"\(experiment)\"; \(hint)"
        }
        guard declared.hasArm(arm) else {
            return "experiment \"\(experiment)\" has no arm \"\(arm)\"; \(Suggestion.hint(for: arm, in: declared.arms.map(\.name)))"
        }
        return nil
    }
}

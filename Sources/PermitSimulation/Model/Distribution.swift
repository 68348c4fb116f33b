import Foundation
import PermitCore
import PermitInput

/// A count drawn per day or per session: how many sessions a user has today, how many
/// features they open in one.
///
/// Written in a model file as a whole number (`2`: always two), `{ poisson: 1.5 }` (mean 1.5),
/// `{ uniform: [1, 3] }` (1, 2 or 3 with equal chance) or `{ choice: { 0: 0.2, 1: 0.5, 2: 0.3 } }`.
public enum CountDistribution: Sendable, Hashable, CustomStringConvertible {
    /// Always this count.
    case fixed(Int)
    /// Poisson-distributed around `mean`: most days near it, some busier, some empty.
    case poisson(mean: Double)
    /// Any count in the range, each equally likely.
    case uniform(ClosedRange<Int>)
    /// Counts with their shares.
    case choice(Weighted<Int>)

    /// The largest count ever drawn, so a typo (`poisson: 1500`) cannot stall a run.
    public static let maximum = 100

    /// Draws a count from `rng` (at most `maximum`).
    public func sample(_ rng: inout SplitMix64) -> Int {
        switch self {
        case .fixed(let count):
            return count
        case .uniform(let range):
            return range.lowerBound + Int(rng.next() % UInt64(range.count))
        case .choice(let weighted):
            return weighted.pick(&rng)
        case .poisson(let mean):
            // Knuth's method: exact, and fast for the small means a model uses (≤ 50).
            let limit = exp(-mean)
            var product = rng.unit()
            var count = 0
            while product > limit, count < CountDistribution.maximum {
                count += 1
                product *= rng.unit()
            }
            return count
        }
    }

    /// The expected count, for reports.
    public var mean: Double {
        switch self {
        case .fixed(let count): Double(count)
        case .poisson(let mean): mean
        case .uniform(let range): Double(range.lowerBound + range.upperBound) / 2
        case .choice(let weighted): weighted.items.reduce(0) { $0 + Double($1.value) * $1.share }
        }
    }

    /// The distribution as a model file writes it.
    public var description: String {
        switch self {
        case .fixed(let count): "\(count)"
        case .poisson(let mean): "poisson(mean \(mean))"
        case .uniform(let range): "uniform \(range.lowerBound)–\(range.upperBound)"
        case .choice(let weighted): "choice " + weighted.items.map { "\($0.value): \($0.share)" }.joined(separator: ", ")
        }
    }

    static let forms = ["poisson", "uniform", "choice"]

    static func parse(_ node: YAMLValue) throws(InputError) -> CountDistribution {
        let range = 0...maximum
        if case .scalar = node.node {
            guard let count = try? node.int(in: range) else {
                throw node.error(
                    "expected a whole number from 0 to \(maximum) or a distribution, got \(node.kindName)",
                    hint: "write e.g. 2, { poisson: 1.5 }, { uniform: [1, 3] } or { choice: { 0: 0.3, 1: 0.7 } }")
            }
            return .fixed(count)
        }
        let entries = try node.table(allowed: forms)
        guard entries.count == 1, let (form, value) = entries.first else {
            throw node.error(
                "a distribution has exactly one form; got \(entries.count)",
                hint: "write e.g. { poisson: 1.5 }")
        }
        switch form {
        case "poisson":
            let mean = try value.number()
            guard mean >= 0, mean <= 50 else { throw value.error("\(mean) is out of range; a mean from 0 to 50") }
            return .poisson(mean: mean)
        case "uniform":
            let bounds = try value.list()
            guard bounds.count == 2 else {
                throw value.error("expected [min, max], got a list of \(bounds.count)", hint: "write e.g. [1, 3]")
            }
            let low = try bounds[0].int(in: range), high = try bounds[1].int(in: range)
            guard low <= high else { throw value.error("the minimum \(low) is above the maximum \(high)") }
            return .uniform(low...high)
        default:
            var items: [(Int, Double, YAMLValue)] = []
            for (key, share) in try value.table() {
                let keyNode = value.child(key, share.node)
                guard let count = Int(key), range.contains(count) else {
                    throw keyNode.error("\"\(key)\" is not a count; the keys are whole numbers from 0 to \(maximum)")
                }
                items.append((count, try share.probability(), share))
            }
            return .choice(try Weighted(items, at: value))
        }
    }
}

/// Values with shares that add up to 1: an OS-version mix, a locale mix.
public struct Weighted<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The values and their shares, in the file's order.
    public let items: [Item]

    /// One value and its share.
    public struct Item: Sendable, Hashable {
        /// The value.
        public let value: Value
        /// Its share, 0–1.
        public let share: Double
    }

    /// Cumulative shares, for drawing.
    private let cumulative: [Double]

    /// Values with shares; the caller makes them add up to 1.
    public init(_ pairs: [(value: Value, share: Double)]) {
        items = pairs.map { Item(value: $0.value, share: $0.share) }
        var total = 0.0
        cumulative = pairs.map {
            total += $0.share; return total
        }
    }

    init(_ pairs: [(Value, Double, YAMLValue)], at node: YAMLValue) throws(InputError) {
        guard !pairs.isEmpty else { throw node.error("needs at least one entry") }
        let total = pairs.reduce(0) { $0 + $1.1 }
        guard abs(total - 1) < 0.001 else {
            throw node.error(
                "the shares add up to \(String(format: "%.3f", total)), not 1",
                hint: "make them add up to 1 (or 100%)")
        }
        self.init(pairs.map { ($0.0, $0.1) })
    }

    /// Draws a value from `rng`, each as often as its share.
    public func pick(_ rng: inout SplitMix64) -> Value {
        let draw = rng.unit() * (cumulative.last ?? 1)
        // Over the indices, not `enumerated()`: every user draws several values, and in a debug
        // build (the test suite's) each enumerated step looks up tuple metadata.
        for index in cumulative.indices where draw < cumulative[index] { return items[index].value }
        return items[items.count - 1].value
    }

    /// Equal when the values and shares are.
    public static func == (lhs: Weighted, rhs: Weighted) -> Bool { lhs.items == rhs.items }
    /// Hashes the values and shares.
    public func hash(into hasher: inout Hasher) { hasher.combine(items) }
}

extension SplitMix64 {
    /// A uniform draw in [0, 1) with 53 bits of precision.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// `true` with probability `chance`.
    public mutating func chance(_ chance: Double) -> Bool {
        chance > 0 && unit() < chance
    }
}

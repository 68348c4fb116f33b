/// Latency figures of one measured loop, in nanoseconds.
public struct LatencyStats: Sendable, Codable {
    /// How many samples.
    public var count: Int
    /// The fastest, in nanoseconds.
    public var minNanoseconds: Double
    /// The median, in nanoseconds.
    public var medianNanoseconds: Double
    /// The 99th percentile, in nanoseconds: what one slow event in a hundred costs.
    public var p99Nanoseconds: Double
    /// Decisions per second at the median latency.
    public var perSecond: Double

    /// Statistics of `samples`, each a duration in nanoseconds.
    public init(samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        minNanoseconds = sorted.first ?? 0
        medianNanoseconds = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        p99Nanoseconds = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        perSecond = medianNanoseconds > 0 ? 1e9 / medianNanoseconds : 0
    }

    private enum CodingKeys: String, CodingKey {
        case count
        case minNanoseconds = "min_ns"
        case medianNanoseconds = "median_ns"
        case p99Nanoseconds = "p99_ns"
        case perSecond = "per_second"
    }
}

import PermitCore
import PermitInput

/// `matrix: { os: ["9.3", "16.4"], locale: [en, de] }`: one story told on several devices
/// (docs/reference/scenarios.md#matrix). Each combination of the axes' values is a case that runs as its
/// own scenario, named `name [os=9.3, locale=de]`, so a report, `--filter` and JUnit tell the
/// cases apart.
struct ScenarioMatrix {
    /// The axes a matrix may vary: the device fields and the user's bucket, which are what
    /// make a policy decide differently for the same story.
    static let axes = ["os", "locale", "timezone", "bucket"]
    /// More cases than any story needs; a typo multiplying axes is caught before it runs for minutes.
    static let maxCases = 256

    /// One combination: each axis's value, as written in the matrix (so errors point there).
    struct Case {
        var values: [(axis: String, value: YAMLValue)]

        /// `os=9.3, locale=de`.
        var label: String {
            values.map { "\($0.axis)=\((try? $0.value.string()) ?? "?")" }.joined(separator: ", ")
        }

        /// The value this case gives `axis`, if the matrix varies it.
        func value(of axis: String) -> YAMLValue? { values.first { $0.axis == axis }?.value }
    }

    /// The axes in the order written, each with its values as text.
    var axisValues: [(axis: String, values: [String])] = []
    /// Every combination, the first axis varying slowest.
    var cases: [Case] = [Case(values: [])]

    /// No matrix: one case that varies nothing.
    init() {}

    /// Reads `matrix:`, refusing unknown axes, empty or repeated values and too many cases.
    init(_ value: YAMLValue) throws(InputError) {
        let axes = try value.table(allowed: Self.axes)
        guard !axes.isEmpty else {
            throw value.error("the matrix has no axes", hint: "write e.g. `matrix: { os: [\"9.3\", \"16.4\"] }`, or remove it")
        }
        for (axis, list) in axes {
            let items: [YAMLValue] = if case .sequence = list.node { try list.list() } else { [list] }
            guard !items.isEmpty else {
                throw list.error("the axis \(axis) has no values", hint: "list at least one, e.g. `\(axis): [\(Self.example(axis))]`")
            }
            var texts: [String] = []
            for item in items {
                let text = try item.string()
                guard !texts.contains(text) else { throw item.error("\"\(text)\" is listed twice in \(axis)") }
                texts.append(text)
            }
            axisValues.append((axis, texts))
            cases = cases.flatMap { base in items.map { Case(values: base.values + [(axis, $0)]) } }
            guard cases.count <= Self.maxCases else {
                throw value.error(
                    "the matrix makes more than \(Self.maxCases) cases",
                    hint: "split the story into several files, or vary fewer axes")
            }
        }
    }

    private static func example(_ axis: String) -> String {
        switch axis {
        case "os": "\"16.4\""
        case "locale": "en, de"
        case "timezone": "UTC, Asia/Taipei"
        default: "0, 50"
        }
    }
}

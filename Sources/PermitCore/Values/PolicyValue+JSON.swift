import Foundation

extension PolicyValue {
    /// The value as pretty-printed JSON with sorted keys, the shape every `--format json`
    /// report prints (scenario runs, `decide`, `bench`, `simulate`). It lives beside the value
    /// rather than in one verb's report so every report layer can share it.
    public var prettyJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Durations as people write them in scenario files and in flags such as
/// `permit bundle --expires-in`: `30s`, `5m`, `2h`, `3d`, `1d12h`, units largest first.
package enum InputDuration {
    package static let hint = "use a number with a unit, largest first: 30s, 5m, 2h, 3d, 1d12h"

    /// Seconds, or `nil` when the text is not a duration.
    package static func seconds(_ text: String) -> Int64? {
        let units: [(Character, Int64)] = [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)]
        var total: Int64 = 0
        var digits = ""
        var nextUnit = 0
        var sawUnit = false
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 9 else { return nil }
                continue
            }
            guard !digits.isEmpty, let index = units.firstIndex(where: { $0.0 == character }), index >= nextUnit,
                let amount = Int64(digits)
            else { return nil }
            total += amount * units[index].1
            nextUnit = index + 1
            digits = ""
            sawUnit = true
        }
        return digits.isEmpty && sawUnit ? total : nil
    }

    /// `seconds` written back the way `seconds(_:)` reads it, largest unit first (`1d12h`, `0s`).
    package static func text(_ seconds: Int64) -> String {
        guard seconds > 0 else { return "0s" }
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", Int64(86400)), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }
}

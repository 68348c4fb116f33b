import PermitCore
import PermitInput

/// The readers a user-model file needs beyond the scenario files' YAML reader (which gives
/// file, line, column, field path and "did you mean" for every error).
extension YAMLValue {
    func number() throws(InputError) -> Double {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Double(scalar.string),
            value.isFinite
        else {
            throw error("expected a number, got \(kindName)")
        }
        return value
    }

    /// A chance: a number from 0 to 1 (`0.3`), or a percentage (`30%`).
    func probability() throws(InputError) -> Double {
        if case .scalar(let scalar) = node, scalar.style == .plain, scalar.string.hasSuffix("%"),
            let percent = Double(scalar.string.dropLast()), percent.isFinite
        {
            guard (0...100).contains(percent) else {
                throw error("\(scalar.string) is out of range; a chance is 0%–100%")
            }
            return percent / 100
        }
        guard let value = try? number() else {
            throw error("expected a chance from 0 to 1 (like 0.3) or a percentage (like 30%), got \(kindName)")
        }
        guard (0...1).contains(value) else {
            throw error("\(value) is out of range; a chance is from 0 to 1 (or write a percentage like 30%)")
        }
        return value
    }
}

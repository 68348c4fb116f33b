/// Literals for the scalars, so a host writes an app event's properties as it would say them:
/// `.custom("lesson_completed", properties: ["count": 2, "course": "verbs"])`.
extension PolicyValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral
{
    /// `2` is `.integer(2)`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `0.5` is `.number(0.5)`.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `"verbs"` is `.string("verbs")`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

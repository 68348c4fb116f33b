/// Checks a `YYYY-MM-DD[THH:MM:SS...]` text for a day or time that does not exist. Every date
/// reader (`YAMLValue.date()`, the initial ledger's `prompts_day`) asks it first, because
/// Foundation's ISO 8601 parser rolls February 30th over to March 2nd instead of refusing it.
package enum CalendarText {
    /// Why a `YYYY-MM-DD...` text names no real day or time (February 30th, hour 25), or `nil`.
    /// Foundation's ISO 8601 parser rolls such dates over to the next month instead.
    package static func impossibleDate(_ text: String) -> String? {
        let characters = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= characters.count else { return nil }
            var value = 0
            for byte in characters[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        guard (1...12).contains(month) else { return "there is no month \(month)" }
        let days = daysIn(month: month, year: year)
        guard (1...days).contains(day) else {
            return "\(monthNames[month - 1]) \(year) has \(days) days, so there is no day \(day)"
        }
        guard characters.count >= 19, characters[10] == UInt8(ascii: "T") else { return nil }
        if let hour = number(11..<13), hour > 23 { return "there is no hour \(hour)" }
        if let minute = number(14..<16), minute > 59 { return "there is no minute \(minute)" }
        if let second = number(17..<19), second > 59 { return "there is no second \(second)" }
        return nil
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

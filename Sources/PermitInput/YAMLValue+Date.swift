import Foundation
import PermitCore

extension YAMLValue {
    /// A moment written as ISO 8601 with a zone (`2026-01-05T08:00:00Z`): scenario and model
    /// files' `start`. One reader, so both files accept and refuse the same texts.
    package func date() throws(InputError) -> Date {
        let text = try string()
        if let problem = CalendarText.impossibleDate(text) {
            throw error("\"\(text)\" is not a date and time: \(problem)", hint: "write ISO 8601 with a zone, e.g. \"2026-01-05T08:00:00Z\"")
        }
        guard let date = InternetDateTime.date(from: text) else {
            throw error("\"\(text)\" is not a date and time", hint: "write ISO 8601 with a zone, e.g. \"2026-01-05T08:00:00Z\"")
        }
        return date
    }
}

import PermitCore
import PermitSimulator

extension ExpectationCheck {
    /// `expect_notified`: exactly these notifications posted by the step, in order, each listed
    /// field equal (texts after localisation, how the device delivered it).
    static func notified(_ expected: [Scenario.ExpectedNotification], _ posted: [PostedNotification]) -> [String] {
        guard posted.count == expected.count else {
            let got = posted.map { "\($0.notification.id) (\($0.delivery.rawValue))" }
            return [
                "expected \(expected.count) notification(s) posted, got \(posted.count)"
                    + (got.isEmpty ? "" : ": \(got.joined(separator: ", "))")
            ]
        }
        var failures: [String] = []
        for (index, (want, got)) in zip(expected, posted).enumerated() {
            let label = "notification \(index + 1) (line \(want.line))"
            func differs(_ field: String, _ wanted: String?, _ actual: String?) {
                guard let wanted, wanted != actual else { return }
                failures.append("\(label) \(field): expected \"\(wanted)\", got \(actual.map { "\"\($0)\"" } ?? "nothing")")
            }
            differs("title", want.title, got.notification.title)
            differs("body", want.body, got.notification.body)
            differs("id", want.id, got.notification.id)
            differs("delivered", want.delivered?.rawValue, got.delivery.rawValue)
            if let sound = want.sound, sound != got.playedSound {
                failures.append("\(label) sound: expected \(sound), got \(got.playedSound)")
            }
        }
        return failures
    }
}

import Foundation
import PermitTestSupport
import Testing

/// `permit run` keeps its columns aligned whatever the event's length.
@Suite struct TimelineColumnsTests {
    @Test func aLongFeatureNameWidensTheColumnForEveryLine() async throws {
        let tree = Tree()
        tree.write(
            "long.yaml",
            """
            device: { os: "16.4" }
            params: { features: [reminders, a_very_long_feature_name_for_the_weekly_digest] }
            steps:
              - event: app_launch
              - { event: feature_opened, feature: a_very_long_feature_name_for_the_weekly_digest }
              - answer: decline
            """)
        let run = try await CLITests.permit(["run", "policies/polite", tree.path("long.yaml")])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").filter { $0.hasPrefix("+") }
        #expect(lines.count == 3)
        // The status column starts at the same place on every line, after the longest event.
        let starts = lines.map { line -> Int in
            let status = ["unknown", "not_determined"].compactMap { line.range(of: "  " + $0) }.min { $0.lowerBound < $1.lowerBound }
            return status.map { line.distance(from: line.startIndex, to: $0.lowerBound) } ?? -1
        }
        #expect(Set(starts).count == 1 && starts[0] > 60, "\(run.stdout)")
        let decisions = lines.map { line in line.range(of: "none").map { line.distance(from: line.startIndex, to: $0.lowerBound) } }
        #expect(decisions[0] == decisions[2], "\(run.stdout)")
    }
}

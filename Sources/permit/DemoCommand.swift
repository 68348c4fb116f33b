import ArgumentParser
import Foundation
import PermitCore
import PermitScenario

/// `permit demo`: three walkthroughs of the engine on simulated devices, printed as timelines.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk through the engine on simulated iOS 9, 13 and 16 devices.",
        discussion: """
            Runs a polite prompting policy through three stories and prints each step: the clock,
            the event, the status before and after, the decision, its reason and any guardrail
            warning.

            Example:
              permit demo
            """
    )

    func run() async throws {
        for walkthrough in Walkthrough.all {
            print("== \(walkthrough.title)")
            for line in try await walkthrough.run() { print(line) }
            print("")
        }
    }
}

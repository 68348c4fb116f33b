import ArgumentParser
import Foundation
import PermitCore
import PermitLua
import PermitScenario

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load policies in the sandbox and validate their shape and params.",
        discussion: """
            Reports every problem of every file at once: syntax and runtime errors at load with file \
            and line, a missing name or decide, unknown fields, params that are not plain data. \
            Exit 0 when all are valid, 2 otherwise.

            Example:
              permit check policies/*/policy.lua
            """)

    @Argument(help: "Policy files or pack directories.")
    var policies: [String]

    @OptionGroup var limitOptions: LimitOptions

    func validate() throws {
        guard !policies.isEmpty else { throw ValidationError("give at least one policy file") }
    }

    func run() async throws {
        var problems = 0
        for path in policies {
            guard let url = try? policyURL(path) else { problems += 1; continue }
            let shown = Discovery.displayPath(of: url)
            let (loaded, found) = LuaPolicy.check(contentsOf: url, displayName: shown, limits: limitOptions.limits)
            if let policy = loaded {
                let params = policy.defaultParams.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                print("ok    \(shown)  name \(policy.name)"
                    + (params.isEmpty ? "" : ", params \(params.joined(separator: ", "))")
                    + (policy.plansReminders ? ", plans reminders" : ""))
            } else {
                for problem in found { print("error \(problem)") }
                problems += 1
            }
        }
        if problems > 0 { throw Exit.badInput }
    }
}

import Foundation
import PermitTestSupport
import Testing

/// A value `decide` returns that cannot be copied out of the VM (nested too
/// deeply, or cyclic) has no line of its own once the call is over: the CLI names the policy
/// file and the line where the function that returned it starts, with the field.
@Suite struct DecisionErrorLocationTests {
    static let policy = """
        return {
          name = "bad-values",

          decide = function(ctx)
            if ctx.event.name == "app_launch" then
              local t = {} local inner = t for i = 1, 40 do inner.a = {} inner = inner.a end
              return { action = "none", remember = { deep = t } }
            end
            local t = { list = { 1, 2 } } t.list[3] = t
            return { action = "none", remember = { loop = t } }
          end,
        }
        """

    static func decide(_ event: String) async throws -> (Int32, String) {
        let tree = Tree()
        tree.write("bad.lua", policy)
        let run = try await CLITests.permit(["decide", tree.path("bad.lua"), "--status", "not_determined", "--event", event])
        return (run.status, run.stderr.replacingOccurrences(of: tree.path(), with: ""))
    }

    @Test func aTableNestedTooDeeplyNamesFileLineAndField() async throws {
        let (status, stderr) = try await Self.decide("app_launch")
        #expect(status == 1)
        #expect(stderr.contains("bad.lua:4: decision.remember.deep.a.a.a"), "\(stderr)")
        #expect(stderr.contains("table nested deeper than 32 levels"), "\(stderr)")
    }

    @Test func aCyclicTableNamesFileLineAndField() async throws {
        let (status, stderr) = try await Self.decide("app_background")
        #expect(status == 1)
        #expect(stderr.contains("bad.lua:4: decision.remember.loop.list[3]: cyclic table"), "\(stderr)")
    }
}

import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `remember_durable` in a policy file (docs/reference/policy.md#policy-remember-durable).
@Suite struct DurableKeysReaderTests {
    func policy(_ declaration: String) throws(PolicyError) -> LuaPolicy {
        try LuaPolicy(
            source: """
                return {
                  name = "durable",
                  remember_durable = \(declaration),
                  decide = function(ctx) return nil end,
                }
                """, chunkName: "durable.lua")
    }

    func loadError(_ declaration: String) -> String {
        do {
            _ = try policy(declaration)
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func aDeclarationBecomesTheKeysTheEngineKeeps() throws {
        let loaded = try policy(#"{ history = { "settings_prompt", "soft_prompt" }, state = { "asks", "asked_at" } }"#)
        #expect(loaded.durableKeys == DurableKeys(histories: [.settingsPrompt, .softPrompt], state: ["asks", "asked_at"]))
        #expect(try policy("{}").durableKeys == .none)
        let plain = try LuaPolicy(source: #"return { name = "p", decide = function() end }"#, chunkName: "p.lua")
        #expect(plain.durableKeys == .none)
    }

    @Test(arguments: [
        (
            #"{ history = { "setings_prompt" } }"#,
            #"policy.remember_durable.history[1]: "setings_prompt" is not a history that can be kept; did you mean "settings_prompt"?"#
        ),
        (
            #"{ histories = { "soft_prompt" } }"#,
            #"policy.remember_durable.histories: not a field of remember_durable; did you mean "history"?"#
        ),
        (#"{ state = "asks" }"#, #"policy.remember_durable.state: expected a list of names like { "asks" }, got "asks""#),
        (#"{ state = { asks = true } }"#, "policy.remember_durable.state: expected a list of names"),
        (#"{ state = { "a", 2 } }"#, "policy.remember_durable.state[2]: expected a name, got 2"),
        (#""everything""#, "policy.remember_durable: expected a table like"),
    ])
    func badDeclarationsAreLoadErrorsNamingTheField(declaration: String, expected: String) {
        let message = loadError(declaration)
        #expect(message.contains(expected), "\(message)")
        #expect(message.contains("durable.lua"), "\(message)")
    }

    @Test func moreThanSixteenStateKeysAreRefused() {
        let names = (1...17).map { "\"k\($0)\"" }.joined(separator: ", ")
        #expect(loadError("{ state = { \(names) } }").contains("17 keys, more than the 16 allowed"))
    }
}

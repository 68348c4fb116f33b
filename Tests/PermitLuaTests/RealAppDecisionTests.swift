import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// The decisions shipped apps need, read alike by both readers (the warm path that reads in
/// place, and `DecisionReader`): inline rows without a dismiss button's text, Settings opened
/// at once, and the policy's say over push registration.
@Suite struct RealAppDecisionTests {
    /// Both readers' decision; they must agree.
    static func read(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Decision? {
        let results = try BadValueTests.decide(body)
        let fast = try results.fast.get()
        #expect(try results.general.get() == fast, sourceLocation: sourceLocation)
        return fast
    }

    @Test func anInlineRowNeedsNoDeclineOrCancel() throws {
        let soft = try Self.read(
            "return { action = 'soft_prompt', presentation = 'inline', title = 'Off', message = 'Turn on?', accept = 'Turn on' }")
        guard case .softPrompt(let prompt) = soft?.action else { throw Failure("expected a soft prompt, got \(String(describing: soft))") }
        #expect(prompt.presentation == .inline && prompt.decline == nil)
        let settings = try Self.read(
            "return { action = 'settings_prompt', presentation = 'inline', title = 'Off', message = 'In Settings', open = 'Go' }")
        guard case .settingsPrompt(let row) = settings?.action else { throw Failure("expected a settings prompt") }
        #expect(row.presentation == .inline && row.cancel == nil && row.deepLink == .appSettings)
        // A row may still carry the text; it is kept.
        let kept = try Self.read(
            "return { action = 'soft_prompt', presentation = 'inline', title = 'T', message = 'M', accept = 'A', decline = 'D' }")
        guard case .softPrompt(let withDecline) = kept?.action else { throw Failure("expected a soft prompt") }
        #expect(withDecline.decline == .plain("D"))
    }

    /// A settings row without an `open` text is its own button; a settings dialog still needs
    /// its `open` button, and the error says an inline row would not.
    @Test func aSettingsRowMayBeItsOwnButton() throws {
        let settings = try Self.read(
            "return { action = 'settings_prompt', presentation = 'inline', title = 'Off', message = 'Fix now' }")
        guard case .settingsPrompt(let row) = settings?.action else { throw Failure("expected a settings prompt") }
        #expect(row.open == nil && row.cancel == nil)
        #expect(settings?.fields["open"] == nil)
        for presentation in ["alert", "sheet", "banner"] {
            let results = try BadValueTests.decide(
                "return { action = 'settings_prompt', presentation = '\(presentation)', title = 'T', message = 'M', cancel = 'C' }")
            for result in [results.fast, results.general] {
                let error = try #require(BadValueTests.error(result))
                #expect(error.field == "decision.open")
                #expect(error.message.contains("only an inline row"), "\(error.message)")
            }
        }
    }

    /// A dialog still needs its second button, and the error says an inline row would not.
    @Test(arguments: ["alert", "sheet", "banner"])
    func aDialogStillNeedsItsSecondButton(presentation: String) throws {
        let results = try BadValueTests.decide(
            "return { action = 'settings_prompt', presentation = '\(presentation)', title = 'T', message = 'M', open = 'O' }")
        for result in [results.fast, results.general] {
            let error = try #require(BadValueTests.error(result))
            #expect(error.field == "decision.cancel")
            #expect(error.message.contains("only an inline row"), "\(error.message)")
        }
    }

    @Test func openSettingsWithItsLink() throws {
        #expect(try Self.read("return { action = 'open_settings' }")?.action == .openSettings(.appSettings))
        #expect(
            try Self.read("return { action = 'open_settings', deep_link = 'notification_settings', reason = 'tap' }")?.action
                == .openSettings(.notificationSettings))
        let results = try BadValueTests.decide("return { action = 'open_settings', title = 'no' }")
        for result in [results.fast, results.general] {
            let error = try #require(BadValueTests.error(result))
            #expect(error.field == "decision.title")
        }
    }

    @Test(arguments: RemoteRegistration.allCases)
    func remoteRegistrationOnAnyAction(choice: RemoteRegistration) throws {
        let none = try Self.read("return { action = 'none', remote_registration = '\(choice.rawValue)' }")
        #expect(none?.remoteRegistration == choice)
        let request = try Self.read("return { action = 'request_permission', remote_registration = '\(choice.rawValue)' }")
        #expect(request?.remoteRegistration == choice)
        #expect(none?.fields["remote_registration"] == .string(choice.rawValue))
    }

    @Test func aWrongRemoteRegistrationIsNamed() throws {
        for value in ["'yes'", "true"] {
            let results = try BadValueTests.decide("return { action = 'none', remote_registration = \(value) }")
            for result in [results.fast, results.general] {
                let error = try #require(BadValueTests.error(result))
                #expect(error.field == "decision.remote_registration")
                #expect(error.message.contains("register, unregister, keep"), "\(error.message)")
            }
        }
    }

    /// The policy reads the inline counts from `ctx.history` on the warm path.
    @Test func theHistoryCountsInlineRowsApart() throws {
        let policy = try FastPathTests.policy(
            """
            local s, t = ctx.history.soft_prompt, ctx.history.settings_prompt
            return { action = 'none', reason = s.inline_shown .. '/' .. s.inline_acted .. ' ' .. t.inline_shown .. '/' .. t.inline_acted }
            """)
        let decision = try policy.decide(FastPathTests.context(.appLaunch, history: FastPathTests.fullLedger))
        #expect(decision?.reason == "7/4 5/6")
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitDelivery

/// Policies that wrap another (`RecordingPolicy`, `PolicySource`, the red team's
/// `MeasuredPolicy`) must pass on every `Policy` member. The protocol gives most members a
/// default, so a wrapper that forgets one still compiles and quietly answers the default
/// (no experiments, no durable keys, no declared events): twice a wrapper did exactly that
/// when a member was added. These tests fail at the source instead.
@Suite struct WrapperForwardingTests {
    static let repository = Repository.root

    /// The requirements `Policy` declares, read from its source: a member added to the
    /// protocol is checked here without anyone extending a list.
    static func requirements() throws -> [String] {
        let text = try String(contentsOf: repository.appendingPathComponent("Sources/PermitCore/Policy/Policy.swift"), encoding: .utf8)
        let body = try #require(typeBody(of: "protocol Policy", in: text))
        return members(in: body)
    }

    @Test func theProtocolIsReadWhole() throws {
        // A parser that found nothing would make the source check below vacuous.
        let names = try Self.requirements()
        #expect(
            Set(names) == [
                "name", "plansReminders", "durableKeys", "experiments", "version", "decide", "planReminders",
                "validate", "declaredEvents", "remoteRegistration", "takeTrace", "answer", "eventHandled",
            ])
    }

    /// Every type in `Sources/` and `Tools/` that conforms to `Policy` and holds another policy
    /// declares every requirement itself.
    @Test func everyWrapperInTheSourcesDeclaresEveryRequirement() throws {
        let required = try Self.requirements()
        let wrappers = try Self.wrapperBodies()
        #expect(Set(wrappers.keys).isSuperset(of: ["RecordingPolicy", "PolicySource", "MeasuredPolicy"]))
        for (wrapper, body) in wrappers {
            let missing = required.filter { !members(in: body).contains($0) }
            #expect(
                missing.isEmpty, "\(wrapper) does not forward \(missing.joined(separator: ", ")): it would answer the protocol's default")
        }
    }

    @Test func recordingPolicyPassesOnEveryValueAndCall() throws {
        let probe = ProbePolicy()
        try expectForwarding(RecordingPolicy(inner: probe), to: probe)
    }

    @Test func policySourcePassesOnEveryValueAndCall() throws {
        let probe = ProbePolicy()
        let source = PolicySource(
            builtIn: probe, configuration: PolicySource.Configuration(pack: "demo", trust: .keys([])))
        try expectForwarding(source, to: probe, version: .some(nil))
    }

    /// Compares each member of `wrapper` with `probe`'s, and checks the calls reach it.
    private func expectForwarding(_ wrapper: any Policy, to probe: ProbePolicy, version: Int64?? = .none) throws {
        #expect(wrapper.name == probe.name)
        #expect(wrapper.plansReminders == probe.plansReminders)
        #expect(wrapper.durableKeys == probe.durableKeys)
        #expect(wrapper.experiments == probe.experiments)
        // A bundle source reports the version of the bundle serving, not the built-in's.
        #expect(wrapper.version == (version ?? probe.version))
        #expect(wrapper.declaredEvents == probe.declaredEvents)
        #expect(wrapper.remoteRegistration == probe.remoteRegistration)

        let context = ProbePolicy.context
        #expect(try wrapper.decide(context) == ProbePolicy.decision)
        #expect(try wrapper.planReminders(context) == ProbePolicy.reminders)
        #expect(throws: PolicyError.self) { try wrapper.validate(params: ["typo": .bool(true)]) }
        #expect(wrapper.takeTrace() == "probe trace")
        let answer = wrapper.answer(context)
        #expect(try answer.decision.get() == ProbePolicy.decision)
        #expect(answer.trace == "probe trace")
        wrapper.eventHandled(errors: [PolicyError(kind: .runtime, message: "seen")])
        #expect(probe.handled.current == ["seen"])
    }

    /// The body of each type in `Sources/` and `Tools/` (the red team's runner) that conforms to
    /// `Policy` and holds another policy (`any Policy` or a `LuaPolicy`).
    static func wrapperBodies() throws -> [String: String] {
        let files = ["Sources", "Tools"].flatMap { folder in
            FileManager.default.enumerator(at: repository.appendingPathComponent(folder), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        }
        let declaration = /(?:struct|class|actor)\s+(\w+)\s*:[^{]*\bPolicy\b[^{]*\{/
        var bodies: [String: String] = [:]
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            // The regex is tried only where a type keyword starts (SourceScan says why).
            let starts =
                (SourceScan.starts(of: "struct", in: text) + SourceScan.starts(of: "class", in: text)
                + SourceScan.starts(of: "actor", in: text)).sorted()
            for start in starts {
                guard let match = text[start...].prefixMatch(of: declaration) else { continue }
                let name = String(match.output.1)
                guard let body = typeBody(from: match.range.upperBound, in: text),
                    body.contains(/(?:let|var)\s+\w+\s*:\s*(?:any Policy|LuaPolicy)\b/)
                else { continue }
                bodies[name] = body
            }
        }
        return bodies
    }
}

/// The names a type body declares with `var` or `func`.
private func members(in body: String) -> [String] {
    body.matches(of: /(?:var|func)\s+(\w+)/).map { String($0.output.1) }
}

/// The text between the `{` after `header` and its matching `}`.
private func typeBody(of header: String, in text: String) -> String? {
    guard let start = text.range(of: header), let open = text[start.upperBound...].firstIndex(of: "{") else { return nil }
    return typeBody(from: text.index(after: open), in: text)
}

/// The text from `start` (just after a `{`) to its matching `}`.
private func typeBody(from start: String.Index, in text: String) -> String? {
    var depth = 1, index = start
    while index < text.endIndex {
        switch text[index] {
        case "{": depth += 1
        case "}":
            depth -= 1
            if depth == 0 { return String(text[start..<index]) }
        default: break
        }
        index = text.index(after: index)
    }
    return nil
}

/// A policy whose every member differs from the protocol's default, and which records what
/// reaches it.
private final class ProbePolicy: Policy {
    static let decision = Decision(.requestPermission(options: [.alert]), reason: "probe")
    static let reminders = [ReminderRequest(hour: 9, body: "probe")]
    static let context = PolicyContext(
        event: .appForeground, status: .notDetermined, previousStatus: .notDetermined,
        settings: .typical(for: .notDetermined, on: OSVersion(major: 17)), platform: Platform(version: OSVersion(major: 17)),
        history: Ledger(), now: 1_767_600_000)

    let handled = Locked<[String]>([])
    let name = "probe"
    let plansReminders = true
    let durableKeys = DurableKeys(histories: [.settingsPrompt], state: ["streak"])
    let experiments = [Experiment(name: "first_ask", arms: [.init(name: "quiet", weight: 1), .init(name: "soft", weight: 1)])]
    let version: Int64? = 7
    let declaredEvents = ["lesson_completed"]
    let remoteRegistration: RemoteRegistration? = .keep

    func decide(_ context: PolicyContext) throws(PolicyError) -> Decision? { Self.decision }
    func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] { Self.reminders }
    func validate(params: [String: PolicyValue]) throws(PolicyError) {
        if !params.isEmpty { throw PolicyError(kind: .load, message: "unknown param") }
    }
    func takeTrace() -> String { "probe trace" }
    func answer(_ context: PolicyContext) -> PolicyAnswer {
        PolicyAnswer(decision: .success(Self.decision), trace: takeTrace())
    }
    func eventHandled(errors: [PolicyError]) { handled.withLock { $0 += errors.map(\.message) } }
}

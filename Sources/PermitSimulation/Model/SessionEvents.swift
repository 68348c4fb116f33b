import PermitCore

/// The model's app events as one policy hears them, and how a session draws them: the
/// `per_session` counts, the lifecycle events (`once_after_session`, `once_per_day`) and the
/// events that follow another event or a feature's opening (`follows`).
///
/// Only the events the policy declares are sent to it. An event it does not declare is still
/// drawn when one it declares follows it (the user did it; the policy just does not hear it),
/// so `checkout_done` following `checkout_started` reaches a policy that declares only the former.
struct SessionEvents: Sendable {
    private let perSession: [ModelEvent]
    private let onceAfterSession: [ModelEvent]
    private let oncePerDay: [ModelEvent]
    /// The events that follow each leader (an event's name or a feature's), with their chances.
    private let followers: [String: [(event: ModelEvent, chance: Double)]]
    /// Drawn (their followers need them) but not sent.
    private let silent: Set<String>
    /// No event reaches this policy: a session is its feature opens alone.
    let isEmpty: Bool

    /// The plan for the policy that hears `declared` (the model's events it declares) of all `modelEvents`.
    init(modelEvents: [ModelEvent], declared: [ModelEvent]) {
        var used = Set(declared.map(\.name))
        // A declared follower needs its leaders drawn, all the way up the chain.
        var pending = declared.compactMap(\.leader)
        while let leader = pending.popLast() {
            guard let event = modelEvents.first(where: { $0.name == leader }), used.insert(leader).inserted else { continue }
            if let next = event.leader { pending.append(next) }
        }
        let events = modelEvents.filter { used.contains($0.name) }
        silent = used.subtracting(declared.map(\.name))
        var perSession: [ModelEvent] = []
        var onceAfterSession: [ModelEvent] = []
        var oncePerDay: [ModelEvent] = []
        var followers: [String: [(event: ModelEvent, chance: Double)]] = [:]
        for event in events {
            switch event.timing {
            case .perSession: perSession.append(event)
            case .onceAfterSession: onceAfterSession.append(event)
            case .oncePerDay: oncePerDay.append(event)
            case .follows(let leader, let chance): followers[leader, default: []].append((event, chance))
            }
        }
        self.perSession = perSession
        self.onceAfterSession = onceAfterSession
        self.oncePerDay = oncePerDay
        // A follower whose chain reaches no sent event is never sent: nothing to draw for it.
        self.followers = followers
        isEmpty = declared.isEmpty
    }

    /// A session's feature opens and app events, in a random order, each follower right after
    /// what it follows. `installSession` counts the install's sessions from 1; `firstOfDay` is
    /// whether this is the day's first session.
    func actions(
        featureOpens: Int, features: Weighted<String>, installSession: Int, firstOfDay: Bool, rng: inout SplitMix64
    ) -> [AppEvent] {
        var actions: [AppEvent] = (0..<featureOpens).map { _ in .featureOpened(features.pick(&rng)) }
        for modelEvent in perSession {
            let count = modelEvent.perSession.sample(&rng)
            if modelEvent.drawnProperties.isEmpty {
                actions += repeatElement(modelEvent.event, count: count)
            } else {
                for _ in 0..<count { actions.append(modelEvent.draw(&rng)) }
            }
        }
        for modelEvent in onceAfterSession {
            if case .onceAfterSession(installSession) = modelEvent.timing { actions.append(modelEvent.draw(&rng)) }
        }
        if firstOfDay {
            for modelEvent in oncePerDay {
                if case .oncePerDay(let chance) = modelEvent.timing, rng.chance(chance) { actions.append(modelEvent.draw(&rng)) }
            }
        }
        if actions.count > 1 {
            for index in stride(from: actions.count - 1, to: 0, by: -1) {
                actions.swapAt(index, Int(rng.next() % UInt64(index + 1)))
            }
        }
        guard !followers.isEmpty || !silent.isEmpty else { return actions }
        var sent: [AppEvent] = []
        sent.reserveCapacity(actions.count)
        for action in actions { emit(action, into: &sent, rng: &rng) }
        return sent
    }

    /// `action` (unless the policy does not hear it), then whatever follows it, drawn now.
    private func emit(_ action: AppEvent, into sent: inout [AppEvent], rng: inout SplitMix64) {
        let name: String
        switch action {
        case .featureOpened(let feature): name = feature
        case .custom(let custom): name = custom.name
        default: name = action.name
        }
        if !silent.contains(name) || action.feature != nil { sent.append(action) }
        // Checked at reading: no chain of `follows` comes back to itself, so this ends.
        for follower in followers[name] ?? [] where rng.chance(follower.chance) {
            emit(follower.event.draw(&rng), into: &sent, rng: &rng)
        }
    }
}

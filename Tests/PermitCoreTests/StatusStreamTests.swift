import Foundation
import PermitTestSupport
import Testing

@testable import PermitCore

@Suite struct StatusStreamTests {
    @Test func emitsTheCurrentValueThenDistinctChanges() async throws {
        let world = World(policy: politePolicy)
        try await withTimeout {
            var iterator = world.engine.statusStream.makeAsyncIterator()
            #expect(await iterator.next() == .unknown)
            _ = await world.engine.handle(.appLaunch)
            _ = await world.engine.handle(.appForeground)  // same status: nothing emitted
            _ = await world.engine.handle(.featureOpened("x"))
            _ = await world.engine.handle(.softPromptAnswered(.accept))
            _ = try await world.answerDialog(allow: true)
            #expect(await iterator.next() == .notDetermined)
            #expect(await iterator.next() == .authorized)
            // A late subscriber starts from the current value.
            var late = world.engine.statusStream.makeAsyncIterator()
            #expect(await late.next() == .authorized)
            #expect(world.engine.status == .authorized)
        }
    }

    @Test func manySubscribersAllSeeEveryChange() async throws {
        let world = World(authorization: .denied, policy: always(.none))
        let streams = (0..<5).map { _ in world.engine.statusStream }
        _ = await world.engine.handle(.appLaunch)
        try world.device.changeInSettings(authorization: .authorized)
        await world.engine.refresh()
        try await withTimeout {
            for stream in streams {
                var iterator = stream.makeAsyncIterator()
                #expect(await iterator.next() == .unknown)
                #expect(await iterator.next() == .denied)
                #expect(await iterator.next() == .authorized)
            }
        }
    }

    @Test func aCancelledSubscriberIsReleased() async throws {
        let world = World(policy: always(.none))
        #expect(world.engine.statusSubscriberCount == 0)
        let started = Locked(false)
        let task = Task {
            for await _ in world.engine.statusStream { started.withLock { $0 = true } }
        }
        try await waitUntil { started.current }
        #expect(world.engine.statusSubscriberCount == 1)
        task.cancel()
        try await withTimeout { await task.value }
        #expect(world.engine.statusSubscriberCount == 0)
        // Dropping a stream without iterating it releases it too.
        do { _ = world.engine.statusStream }
        #expect(world.engine.statusSubscriberCount == 0)
    }

    @Test func refreshFindsAChangeMadeInSettings() async throws {
        let world = World(authorization: .authorized, policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        try world.device.changeInSettings(authorization: .denied)
        #expect(world.engine.status == .authorized)  // no callback from iOS
        #expect(await world.engine.refresh() == .denied)
        #expect(await world.engine.history.deniedAt == 1_767_600_000)
    }

    /// iOS can report the old status on the first read after a return from Settings: the
    /// engine re-reads after a delay and the stream still gets the change. The delay is the
    /// engine's clock's: the test moves the manual clock, nothing sleeps for real.
    @Test func aStaleForegroundReadIsCorrectedByTheRecheck() async throws {
        let world = World(
            authorization: .denied, staleReads: 1, rechecks: [.seconds(2), .seconds(4)],
            policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        try await withTimeout {
            var iterator = world.engine.statusStream.makeAsyncIterator()
            #expect(await iterator.next() == .denied)
            try world.device.changeInSettings(authorization: .authorized)
            let foreground = await world.engine.handle(.appForeground)
            #expect(foreground.statusAfter == .denied)  // the stale read
            try await waitUntil { world.clock.sleeperCount == 1 }
            world.advance(1)
            #expect(world.clock.sleeperCount == 1)  // not yet: the first re-check is at 2 s
            #expect(world.engine.status == .denied)
            world.advance(1)
            #expect(await iterator.next() == .authorized)  // the re-check found it
            #expect(await world.engine.history.lastStatus == .authorized)
            // Found, so the second re-check is not scheduled.
            #expect(world.clock.sleeperCount == 0)
        }
    }

    /// A new foreground replaces the re-checks of the one before: its wait ends (cancelled),
    /// it does not linger on the manual clock.
    @Test func aNewForegroundCancelsThePendingRecheck() async throws {
        let world = World(authorization: .denied, rechecks: [.seconds(2)], policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        _ = await world.engine.handle(.appForeground)
        try await waitUntil { world.clock.sleeperCount == 1 }
        _ = await world.engine.handle(.appForeground)
        // The first wait was cancelled, the second one waits.
        try await waitUntil { world.clock.sleeperCount == 1 }
        world.advance(2)
        try await waitUntil { world.clock.sleeperCount == 0 }
        #expect(world.engine.status == .denied)
    }

    @Test func withoutRechecksTheNextForegroundFindsIt() async throws {
        let world = World(authorization: .denied, staleReads: 1, policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        try world.device.changeInSettings(authorization: .authorized)
        #expect(await world.engine.handle(.appForeground).statusAfter == .denied)
        #expect(await world.engine.handle(.appForeground).statusAfter == .authorized)
    }
}

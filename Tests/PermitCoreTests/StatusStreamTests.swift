import Foundation
import Testing
@testable import PermitCore

@Suite struct StatusStreamTests {
    @Test func emitsTheCurrentValueThenDistinctChanges() async throws {
        let world = World(policy: politePolicy)
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

    @Test func manySubscribersAllSeeEveryChange() async throws {
        let world = World(authorization: .denied, policy: always(.none))
        let streams = (0..<5).map { _ in world.engine.statusStream }
        _ = await world.engine.handle(.appLaunch)
        try world.device.changeInSettings(authorization: .authorized)
        await world.engine.refresh()
        for stream in streams {
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == .unknown)
            #expect(await iterator.next() == .denied)
            #expect(await iterator.next() == .authorized)
        }
    }

    @Test func aCancelledSubscriberIsReleased() async throws {
        let world = World(policy: always(.none))
        #expect(world.engine.statusSubscriberCount == 0)
        let started = Locked(false)
        let task = Task {
            for await _ in world.engine.statusStream { started.withLock { $0 = true } }
        }
        while !started.current { await Task.yield() }
        #expect(world.engine.statusSubscriberCount == 1)
        task.cancel()
        _ = await task.value
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
    /// engine re-reads after a delay and the stream still gets the change.
    @Test func aStaleForegroundReadIsCorrectedByTheRecheck() async throws {
        let world = World(authorization: .denied, staleReads: 1, rechecks: [.milliseconds(20), .milliseconds(40)],
                          policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        var iterator = world.engine.statusStream.makeAsyncIterator()
        #expect(await iterator.next() == .denied)
        try world.device.changeInSettings(authorization: .authorized)
        let foreground = await world.engine.handle(.appForeground)
        #expect(foreground.statusAfter == .denied)  // the stale read
        #expect(await iterator.next() == .authorized)  // the recheck found it
        #expect(await world.engine.history.lastStatus == .authorized)
    }

    @Test func withoutRechecksTheNextForegroundFindsIt() async throws {
        let world = World(authorization: .denied, staleReads: 1, policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        try world.device.changeInSettings(authorization: .authorized)
        #expect(await world.engine.handle(.appForeground).statusAfter == .denied)
        #expect(await world.engine.handle(.appForeground).statusAfter == .authorized)
    }
}

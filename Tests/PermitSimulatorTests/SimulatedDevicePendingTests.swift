import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// The simulated device's pending list, read without copying when nothing is due and it is
/// already soonest first: the same list, and the same deliveries, as partitioning and sorting.
@Suite struct SimulatedDevicePendingTests {
    /// The long way, as the device read it before: due ones delivered, the rest soonest first.
    static func reference(_ added: [ScheduledReminder], now: Date) -> (pending: [ScheduledReminder], delivered: [ScheduledReminder]) {
        let due = added.filter { $0.fireDate <= now }.sorted { $0.fireDate < $1.fireDate }
        return (added.filter { $0.fireDate > now }.sorted { $0.fireDate < $1.fireDate }, due)
    }

    @Test(arguments: [
        [600, 1_200, 1_800],  // soonest first, nothing due: returned as it is
        [1_200, 600, 1_800],  // not sorted
        [600, 600, 1_800],  // two at the same time
        [0, 600, 1_200],  // one due right now
        [-60, 600],  // one past
        [],
    ])
    func theShortReadIsTheLongOne(offsets: [Int]) throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
        let device = try SimulatedDevice(
            platform: Platform(version: OSVersion(major: 17, minor: 0)), clock: clock, authorization: .authorized)
        let now = clock.now()
        let added = offsets.enumerated().map { index, offset in
            ScheduledReminder(id: "permit.\(index)", fireDate: now.addingTimeInterval(TimeInterval(offset)), body: "b\(index)")
        }
        device.add(added)
        let expected = Self.reference(added, now: now)
        #expect(device.pending == expected.pending)
        #expect(device.pending == expected.pending)  // a second read, after the first settled the list
        #expect(device.delivered == expected.delivered)
    }
    /// Deliveries over time, seeded: lists in and out of order, ties, several due at once or
    /// none. Each step must deliver what the long way delivers (the due ones, soonest first, ties
    /// in the order they were added) and leave the rest, whichever way the device took.
    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func deliveriesOverTimeAreTheLongWays(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
        let device = try SimulatedDevice(
            platform: Platform(version: OSVersion(major: 17, minor: 0)), clock: clock, authorization: .authorized)
        let start = clock.now()
        let count = Int(random.next() % 12)
        // Offsets on a coarse grid (ties are common); in order for some seeds, shuffled for others.
        var offsets = (0..<count).map { _ in TimeInterval(60 * (1 + random.next() % 8)) }
        if seed.isMultiple(of: 2) { offsets.sort() }
        let added = offsets.enumerated().map { index, offset in
            ScheduledReminder(id: "permit.\(index)", fireDate: start.addingTimeInterval(offset), body: "b\(index)")
        }
        device.add(added)
        var waiting = added, delivered: [ScheduledReminder] = []
        for _ in 0..<4 {
            clock.advance(by: TimeInterval(60 * (random.next() % 4)))
            let now = clock.now()
            delivered += waiting.filter { $0.fireDate <= now }.sorted { $0.fireDate < $1.fireDate }
            waiting = waiting.filter { $0.fireDate > now }
            #expect(device.delivered == delivered, "seed \(seed)")
            #expect(device.pending == waiting.sorted { $0.fireDate < $1.fireDate }, "seed \(seed)")
        }
    }
}

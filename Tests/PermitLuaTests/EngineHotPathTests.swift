import Foundation
import PermitSimulator
import Testing

@testable import PermitCore
@testable import PermitLua

/// The engine's warm path keeps the local day between events; the day must still be the one
/// the Calendar gives for every `now` (midnight, DST changes, a clock set back).
@Suite struct EngineHotPathTests {
    static func expectedDay(_ seconds: Int64, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    @Test(arguments: ["America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"])
    func theLocalDayFollowsTheCalendar(zoneName: String) async throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        let platform = Platform(version: OSVersion(major: 16, minor: 4))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_772_900_000))  // 2026-03-07, before US DST
        let device = try SimulatedDevice(platform: platform, clock: clock)
        let engine = PermissionEngine(
            policy: ClosurePolicy { _ in nil }, client: device, platform: platform, clock: clock,
            configuration: EngineConfiguration(timeZone: zone, foregroundRechecks: []))
        // Around the spring and autumn changes (US, Europe, Lord Howe's half hour), by uneven steps,
        // then back in time.
        var times: [Int64] = []
        for start: Int64 in [1_772_900_000, 1_774_700_000, 1_775_300_000, 1_790_000_000, 1_792_600_000, 1_793_300_000] {
            for step in 0..<60 { times.append(start + Int64(step) * 3_607) }
        }
        times += [1_772_900_000, 1_772_899_999, 1_700_000_000, 1_793_400_000, 1_793_399_999]
        for time in times {
            clock.set(Date(timeIntervalSince1970: TimeInterval(time)))
            _ = await engine.handle(.appBackground)
            #expect(await engine.history.promptsDay == Self.expectedDay(time, in: zone), "\(zoneName) \(time)")
        }
    }
}

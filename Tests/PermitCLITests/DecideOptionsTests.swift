import Foundation
import PermitTestSupport
import Testing

/// `permit decide`'s clock, zone, bucket and structured params, and its exit code when the
/// policy fails: what a quick experiment needs to reproduce one moment of one user.
@Suite struct DecideOptionsTests {
    static let policy = """
        return {
          name = "probe",
          params = { quiet = { 22, 8 }, copy = { en = "Hi" } },
          decide = function(ctx)
            if ctx.event.name == "app_background" then error("boom") end
            local t = ctx.local_time
            return { action = "none", reason = table.concat({ t.date, t.hour, t.minute, t.weekday, t.timezone,
              ctx.now, ctx.user.bucket, ctx.params.quiet[1], ctx.params.quiet[2], ctx.params.copy.en }, " ") }
          end,
        }
        """

    static func decide(_ arguments: [String]) async throws -> (status: Int32, reason: String?, stderr: String) {
        let tree = Tree()
        tree.write("probe.lua", Self.policy)
        let run = try await CLITests.permit(
            ["decide", tree.path("probe.lua"), "--status", "not_determined"] + arguments + ["--format", "json"])
        let object = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let decision = object?["decision"] as? [String: Any]
        return (run.status, decision?["reason"] as? String, run.stderr)
    }

    @Test func theClockZoneBucketAndParamsReachThePolicy() async throws {
        let run = try await Self.decide([
            "--event", "app_launch", "--now", "2026-09-06T04:00:30Z", "--timezone", "America/Santiago", "--bucket", "42",
            "--param", "quiet=[23, 7]", "--param", #"copy={"en": "Hello"}"#,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // 04:00 UTC is the first instant of Chile's summer time: 01:00 on Sunday the 6th.
        #expect(run.reason == "2026-09-06 1 0 7 America/Santiago 1788667230 42 23 7 Hello")
        let offset = try await Self.decide(["--event", "app_launch", "--now", "2026-09-06T23:30:00.750+02:00", "--timezone", "UTC"])
        #expect(offset.reason == "2026-09-06 21 30 7 UTC 1788730200 0 22 8 Hi")
    }

    @Test func badValuesAreInputErrorsThatSayWhatToWrite() async throws {
        let now = try await Self.decide(["--event", "app_launch", "--now", "yesterday"])
        #expect(now.status == 2)
        #expect(now.stderr.contains("--now: \"yesterday\" is not an ISO 8601 time; write it like 2026-09-06T21:30:00Z"))
        let zone = try await Self.decide(["--event", "app_launch", "--timezone", "Europe/Berln"])
        #expect(zone.status == 2)
        #expect(zone.stderr.contains("did you mean \"Europe/Berlin\"?"), "\(zone.stderr)")
        let bucket = try await Self.decide(["--event", "app_launch", "--bucket", "100"])
        #expect(bucket.status == 2)
        #expect(bucket.stderr.contains("--bucket: 100 is not a bucket"))
        let json = try await Self.decide(["--event", "app_launch", "--param", "quiet=[22, 8"])
        #expect(json.status == 2)
        #expect(json.stderr.contains("--param quiet: [22, 8 starts like a JSON list or table but is not valid JSON"))
        let type = try await Self.decide(["--event", "app_launch", "--param", "quiet=7"])
        #expect(type.status == 2, "a number where the policy declares a table")
    }

    @Test func aPolicyErrorExitsOne() async throws {
        let run = try await Self.decide(["--event", "app_background"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("the policy raised an error"))
        #expect(run.stderr.contains("probe.lua:5"), "\(run.stderr)")
        #expect(run.stderr.contains("boom"))
    }
}

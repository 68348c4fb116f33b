import Foundation
import PermitCore
import PermitDelivery
import PermitSimulator
import Testing

@testable import PermitFetch

/// The fetcher through URLSession against a real HTTP/1.1 server on loopback: each test starts
/// its own `TestHTTPServer` and scripts what it answers. Times are the source's manual clock
/// (the interval and the backoff); only the timeouts are real, short, against a server that
/// waits far longer.
@Suite struct BundleFetcherTests {
    let key = BundleSigningKey()
    let directory = temporaryDirectory()
    let clock = ManualClock(start)

    /// A source keeping its files (and the fetcher's) in the test's directory.
    func makeSource() throws -> PolicySource {
        try source(key: key, directory: directory, clock: clock)
    }

    /// Limits that keep a test short: a 5 s request timeout, a 10 minute interval, a 60 s
    /// first backoff with jitter 0.5 and the random source fixed at 0.5 (so each wait is 3/4
    /// of the full one).
    func makeFetcher(
        _ url: URL, _ source: PolicySource, _ adjust: (inout BundleFetcher.Configuration) -> Void = { _ in }
    ) -> BundleFetcher {
        var configuration = BundleFetcher.Configuration(
            requestTimeout: 5, resourceTimeout: 10, minimumInterval: 600,
            backoff: FetchBackoff(initial: 60, multiplier: 2, maximum: 3600, jitter: 0.5), random: { 0.5 })
        adjust(&configuration)
        return BundleFetcher(url: url, source: source, configuration: configuration)
    }

    /// The source's own record of bundles it was handed (installs and refusals).
    func handedOver(_ source: PolicySource) -> [DeliveryEvent] {
        source.status.events.filter { $0.kind == .installed || $0.kind == .refused }
    }

    @Test func okInstallsTheBundleAndStatusSaysSo() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { _ in
            .send(status: 200, headers: ["ETag": "\"v1\"", "Last-Modified": "Mon, 05 Jan 2026 08:00:00 GMT"], body: body)
        }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/polite.permitbundle"), source)
        #expect(await fetcher.check() == .installed(version: 1))
        #expect(source.status.serving == .bundle(pack: "demo", version: 1, signer: key.keyID))
        let status = await fetcher.status
        #expect(status.lastCheck == FetchRecord(time: start, outcome: .installed(version: 1)))
        #expect(status.lastSuccess == start)
        #expect(status.consecutiveFailures == 0 && status.backingOffUntil == nil)
        #expect(status.nextCheck == start.addingTimeInterval(600))
        #expect(status.etag == "\"v1\"" && status.lastModified == "Mon, 05 Jan 2026 08:00:00 GMT")
        #expect(status.description.contains("installed version 1"), "\(status)")
        #expect(server.requests.map(\.path) == ["/polite.permitbundle"])
        #expect(server.requests.first?.headers["if-none-match"] == nil)
    }

    @Test func notModifiedAfterAColdStartInstallsNothing() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { request in
            request.headers["if-none-match"] == "\"v1\""
                ? .send(status: 304, headers: ["ETag": "\"v1\""])
                : .send(status: 200, headers: ["ETag": "\"v1\"", "Last-Modified": "Mon, 05 Jan 2026 08:00:00 GMT"], body: body)
        }
        defer { server.stop() }
        #expect(await makeFetcher(server.url("/b"), try makeSource()).check() == .installed(version: 1))

        // The next launch: a new source restores version 1, a new fetcher reads what it kept.
        clock.advance(by: 601)
        let source = try makeSource()
        #expect(source.status.serving.version == 1)
        let fetcher = makeFetcher(server.url("/b"), source)
        #expect(await fetcher.check() == .notModified)
        let asked = try #require(server.requests.last)
        #expect(asked.headers["if-none-match"] == "\"v1\"")
        #expect(asked.headers["if-modified-since"] == "Mon, 05 Jan 2026 08:00:00 GMT")
        #expect(handedOver(source).isEmpty, "a 304 hands nothing to the source")
        #expect(source.status.serving.version == 1)
        let status = await fetcher.status
        #expect(status.lastCheck?.outcome == .notModified)
        #expect(status.lastSuccess == start.addingTimeInterval(601))
        #expect(status.description.contains("not modified"), "\(status)")
    }

    @Test func notFoundIsAFailureAndSetsABackoff() async throws {
        let server = try TestHTTPServer { _ in .send(status: 404, body: Data("no such bundle".utf8)) }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/missing"), source)
        #expect(await fetcher.check() == .httpStatus(404))
        let status = await fetcher.status
        #expect(status.consecutiveFailures == 1)
        #expect(status.backingOffUntil == start.addingTimeInterval(45))
        #expect(status.description.contains("HTTP 404") && status.description.contains("backing off"), "\(status)")
        #expect(handedOver(source).isEmpty)
        #expect(source.status.serving == .builtIn(name: "builtin"))
    }

    @Test func serverErrorBacksOffAndACheckBeforeTheBackoffSendsNothing() async throws {
        let healthy = Locked(false)
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { _ in healthy.withLock { $0 } ? .send(status: 200, body: body) : .send(status: 500) }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/b"), source) { $0.minimumInterval = 0 }
        #expect(await fetcher.check() == .httpStatus(500))
        #expect(await fetcher.status.backingOffUntil == start.addingTimeInterval(45))

        clock.advance(by: 30)
        #expect(await fetcher.check() == .backingOff(until: start.addingTimeInterval(45)))
        #expect(server.requests.count == 1, "a check in the backoff sends nothing")

        // The second failure in a row waits twice as long (120 s, less a quarter).
        clock.advance(by: 20)
        #expect(await fetcher.check() == .httpStatus(500))
        #expect(server.requests.count == 2)
        #expect(await fetcher.status.consecutiveFailures == 2)
        #expect(await fetcher.status.backingOffUntil == start.addingTimeInterval(50 + 90))

        healthy.withLock { $0 = true }
        clock.advance(by: 90)
        #expect(await fetcher.check() == .installed(version: 1))
        let status = await fetcher.status
        #expect(status.consecutiveFailures == 0 && status.backingOffUntil == nil)
    }

    @Test func slowServerTimesOutAndNothingIsInstalled() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { _ in .delayed(seconds: 5, .send(status: 200, body: body)) }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/slow"), source) {
            $0.requestTimeout = 0.5
            $0.resourceTimeout = 1
        }
        let outcome = await fetcher.check()
        guard case .transportError = outcome else {
            Issue.record("expected a timeout, got \(outcome)")
            return
        }
        #expect(outcome.isFailure)
        #expect(await fetcher.status.consecutiveFailures == 1)
        #expect(handedOver(source).isEmpty)
        #expect(source.status.serving == .builtIn(name: "builtin"))
    }

    @Test func truncatedBodyFailsAndNothingIsHalfWritten() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { _ in .truncated(body: body.prefix(body.count / 2), declared: body.count) }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/cut"), source)
        let outcome = await fetcher.check()
        guard case .transportError = outcome else {
            Issue.record("expected a transport error, got \(outcome)")
            return
        }
        #expect(handedOver(source).isEmpty, "half a bundle never reaches the source")
        #expect(source.status.serving == .builtIn(name: "builtin"))
        // The only files are the fetcher's own and the source's launch guard (a page of marks,
        // made when the source opens): no state of the source's, no temporary file.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.sorted() == [FetchStore.fileName, "policy-source.running"].sorted(), "\(files)")
        #expect(await fetcher.status.etag == nil)
    }

    @Test func hugeBodyIsRefusedAtTheCapByItsContentLength() async throws {
        let total = 64 << 20
        let server = try TestHTTPServer { _ in .huge(total: total, declaresLength: true) }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/huge"), source)
        #expect(await fetcher.check() == .tooLarge(limit: 64 << 10))
        #expect(server.bodyBytesSent("/huge") < total, "the body was read whole")
        #expect(handedOver(source).isEmpty)
        #expect(await fetcher.status.backingOffUntil == start.addingTimeInterval(45))
    }

    @Test func hugeBodyWithoutALengthIsCutAtTheCapWhileStreaming() async throws {
        let total = 64 << 20
        let server = try TestHTTPServer { _ in .huge(total: total, declaresLength: false) }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/stream"), source) { $0.maximumBytes = 100_000 }
        #expect(await fetcher.check() == .tooLarge(limit: 100_000))
        #expect(server.bodyBytesSent("/stream") < total, "the body was read whole")
        #expect(handedOver(source).isEmpty)
    }

    @Test func aGzipBodyIsDecodedAndInstalls() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let compressed = GzipBody.literals(body)
        #expect(compressed.count != body.count)
        let server = try TestHTTPServer { _ in
            .send(status: 200, headers: ["Content-Encoding": "gzip", "ETag": "\"v1\""], body: compressed)
        }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/gzip.permitbundle"), source)
        #expect(await fetcher.check() == .installed(version: 1))
        #expect(source.status.serving == .bundle(pack: "demo", version: 1, signer: key.keyID))
        #expect(await fetcher.status.consecutiveFailures == 0)
        #expect(server.requests.first?.headers["accept-encoding"]?.contains("gzip") == true, "URLSession asks for gzip")
    }

    @Test func aCompressionBombStopsAtTheDecodedCap() async throws {
        let decoded = 4 << 20
        let bomb = GzipBody.bomb(of: UInt8(ascii: "x"), count: decoded)
        #expect(bomb.count < 100_000, "the compressed body is under the cap; only its decoded size is over")
        let server = try TestHTTPServer { _ in .send(status: 200, headers: ["Content-Encoding": "gzip"], body: bomb) }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/bomb"), source) { $0.maximumBytes = 100_000 }
        #expect(await fetcher.check() == .tooLarge(limit: 100_000))
        #expect(handedOver(source).isEmpty)
    }

    @Test func redirectIsFollowedToTheBundle() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { request in
            request.path == "/latest"
                ? .send(status: 302, headers: ["Location": "http://\(request.headers["host"] ?? "")/polite-1.permitbundle"])
                : .send(status: 200, body: body)
        }
        defer { server.stop() }
        let source = try makeSource()
        #expect(await makeFetcher(server.url("/latest"), source).check() == .installed(version: 1))
        #expect(server.requests.map(\.path) == ["/latest", "/polite-1.permitbundle"])
        #expect(source.status.serving.version == 1)
    }

    @Test func aCheckSoonerThanTheIntervalSendsNothingEvenAfterARelaunch() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { _ in .send(status: 200, headers: ["ETag": "\"v1\""], body: body) }
        defer { server.stop() }
        #expect(await makeFetcher(server.url("/b"), try makeSource()).check() == .installed(version: 1))
        clock.advance(by: 300)
        let relaunched = makeFetcher(server.url("/b"), try makeSource())
        let outcome = await relaunched.check()
        #expect(outcome == .tooSoon(nextCheck: start.addingTimeInterval(600)))
        #expect(outcome.description.contains("minimum interval"), "\(outcome)")
        #expect(server.requests.count == 1)
        #expect(await relaunched.status.nextCheck == start.addingTimeInterval(600))
    }

    @Test func aDamagedFetcherFileIsSetAsideAndTheCheckGoesOn() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { _ in .send(status: 200, headers: ["ETag": "\"v1\""], body: body) }
        defer { server.stop() }
        try Data("{\"schema\":1,\"memory\":{\"url\":".utf8).write(to: directory.appendingPathComponent(FetchStore.fileName))
        let fetcher = makeFetcher(server.url("/b"), try makeSource())
        let warnings = await fetcher.status.storageWarnings
        #expect(warnings.count == 1 && warnings[0].contains("unreadable") && warnings[0].contains("damaged-"), "\(warnings)")
        #expect(await fetcher.check() == .installed(version: 1))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.contains { $0.hasPrefix("\(FetchStore.fileName).damaged-") }, "\(files)")
        #expect(files.contains(FetchStore.fileName))
    }

    @Test func aRefusedBundleIsReportedWithoutBackoffAndItsValidatorsAreNotKept() async throws {
        let unsigned = try bundle(1, taggedPolicy("v1"))
        let server = try TestHTTPServer { _ in .send(status: 200, headers: ["ETag": "\"u1\""], body: unsigned) }
        defer { server.stop() }
        let source = try makeSource()
        let fetcher = makeFetcher(server.url("/b"), source)
        let outcome = await fetcher.check()
        guard case .refused(let error) = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(error.kind == .unsigned)
        #expect(!outcome.isFailure)
        let status = await fetcher.status
        #expect(status.backingOffUntil == nil && status.consecutiveFailures == 0 && status.lastSuccess == nil)
        #expect(status.etag == nil, "refused bytes are asked for again at the next check, not 304'd away")
        #expect(source.status.events.last?.kind == .refused)
    }

    @Test func twoChecksAtOnceShareOneRequest() async throws {
        let body = try bundle(1, taggedPolicy("v1"), key: key)
        let server = try TestHTTPServer { _ in .delayed(seconds: 0.3, .send(status: 200, body: body)) }
        defer { server.stop() }
        let fetcher = makeFetcher(server.url("/b"), try makeSource())
        async let first = fetcher.check()
        async let second = fetcher.check()
        let outcomes = await [first, second]
        #expect(outcomes == [.installed(version: 1), .installed(version: 1)])
        #expect(server.requests.count == 1)
    }

    @Test func backoffDoublesUpToItsMaximumAndJitterOnlyShortensIt() {
        let backoff = FetchBackoff(initial: 300, multiplier: 2, maximum: 6 * 3600, jitter: 0.5)
        #expect(backoff.delay(afterFailures: 1, random: 0) == 300)
        #expect(backoff.delay(afterFailures: 2, random: 0) == 600)
        #expect(backoff.delay(afterFailures: 4, random: 0) == 2400)
        #expect(backoff.delay(afterFailures: 40, random: 0) == 6 * 3600)
        #expect(backoff.delay(afterFailures: 1, random: 1) == 150)
        #expect(backoff.delay(afterFailures: 40, random: 0.5) == 6 * 3600 * 0.75)
    }
}

import Foundation
import PermitCore
import PermitDelivery

/// Downloads the app's policy bundle and hands it to a `PolicySource`, politely: conditional
/// GETs, a size cap, timeouts, a minimum interval between checks and backoff after failures.
///
/// Call `check()` whenever it suits the app (at launch, on coming to the foreground, from a
/// background refresh): it sends a request only when the interval and any backoff allow, and
/// says what it did. The bundle's trust is the signature, which the source verifies; the
/// fetcher only decides when to ask, what to accept over the wire, and what to remember.
///
/// - **Conditional requests**: the ETag and Last-Modified of the response that brought the
///   bundle serving are remembered (in `bundle-fetcher.json` beside the source's files) and
///   sent as If-None-Match and If-Modified-Since while that bundle serves; a 304 means nothing
///   new. A cold start therefore asks instead of downloading again.
/// - **Size cap**: a body over `maximumBytes` is refused by its Content-Length before any byte
///   of it is read, or while it streams; it is never read whole.
/// - **Timeouts**: `requestTimeout` for the connection and each wait for bytes,
///   `resourceTimeout` for the whole transfer (enforced by the fetcher too).
/// - **Backoff**: after a failure (an error status, a transport error, a body over the cap),
///   no request until the backoff's wait has passed; it grows with each failure in a row.
/// - **Minimum interval**: a check sooner than `minimumInterval` after the last one sends
///   nothing and returns `.tooSoon`.
///
/// An actor: nothing runs on the caller's actor, and the source compiles the bundle on its
/// own background queue (`installInBackground`). Two checks at once share one request.
public actor BundleFetcher {
    /// The fetcher's limits; the defaults suit an app checking at launch and on foreground.
    public struct Configuration: Sendable {
        /// The largest body accepted, in bytes (64 KiB; a pack's bundle is a few KiB). The
        /// source refuses bundles above 4 MiB (`PolicyBundle.maximumSize`) whatever this says.
        public var maximumBytes: Int
        /// The longest wait for the connection or for the next bytes, in seconds (15).
        public var requestTimeout: TimeInterval
        /// The longest a whole transfer may take, in seconds (60).
        public var resourceTimeout: TimeInterval
        /// The least time between two checks that send a request, in seconds (15 minutes).
        public var minimumInterval: TimeInterval
        /// The waits after failures.
        public var backoff: FetchBackoff
        /// The random source for the backoff's jitter: a number in 0..<1 per failure.
        /// Injectable so that tests know the wait.
        public var random: @Sendable () -> Double
        /// Called after every check that sent a request, off the main actor (for the app's log).
        public var onCheck: (@Sendable (FetchRecord) -> Void)?

        /// A configuration; every limit has a default.
        public init(
            maximumBytes: Int = 64 << 10, requestTimeout: TimeInterval = 15, resourceTimeout: TimeInterval = 60,
            minimumInterval: TimeInterval = 15 * 60, backoff: FetchBackoff = FetchBackoff(),
            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
            onCheck: (@Sendable (FetchRecord) -> Void)? = nil
        ) {
            self.maximumBytes = maximumBytes
            self.requestTimeout = requestTimeout
            self.resourceTimeout = resourceTimeout
            self.minimumInterval = minimumInterval
            self.backoff = backoff
            self.random = random
            self.onCheck = onCheck
        }
    }

    /// The bundle's address (http or https; redirects are followed).
    public nonisolated let url: URL
    /// The source the bundles go to.
    public nonisolated let source: PolicySource
    /// The limits.
    public nonisolated let configuration: Configuration

    private let transport: any HTTPTransport
    private let store: FetchStore?
    private var memory: FetchMemory
    private var history: [FetchRecord] = []
    private var storageWarnings: [String] = []
    private var inFlight: Task<FetchOutcome, Never>?

    /// A fetcher for `url` feeding `source`. With a `directory` in the source's configuration
    /// the fetcher keeps `bundle-fetcher.json` there; without, it remembers for this launch only.
    public init(url: URL, source: PolicySource, configuration: Configuration = Configuration()) {
        self.init(url: url, source: source, configuration: configuration, transport: URLSessionTransport())
    }

    init(url: URL, source: PolicySource, configuration: Configuration, transport: any HTTPTransport) {
        self.url = url
        self.source = source
        self.configuration = configuration
        self.transport = transport
        store = source.configuration.directory.map { FetchStore(directory: $0) }
        let loaded = store?.load()
        var memory = loaded?.memory ?? FetchMemory(url: url)
        if memory.url != url.absoluteString {
            // Another address: its validators mean nothing here (the interval and backoff still hold).
            memory.url = url.absoluteString
            memory.etag = nil
            memory.lastModified = nil
            memory.version = nil
        }
        self.memory = memory
        if let warning = loaded?.warning { storageWarnings.append(warning) }
    }

    // MARK: Checking

    /// Asks the server for a newer bundle when the interval and the backoff allow, installs
    /// what it sends, and says what happened. Never throws: every outcome is a value.
    @discardableResult
    public func check() async -> FetchOutcome {
        if let inFlight { return await inFlight.value }
        let now = source.configuration.clock.now()
        if let wait = waitingUntil(now) { return wait }
        let task = Task { await self.fetch(startedAt: now) }
        inFlight = task
        let outcome = await task.value
        inFlight = nil
        return outcome
    }

    /// What holds a check at `now` back, if anything. A time further off than the interval or
    /// the longest backoff (the device's clock went back) holds nothing back.
    private func waitingUntil(_ now: Date) -> FetchOutcome? {
        if let until = memory.backingOffUntil, now < until, until.timeIntervalSince(now) <= configuration.backoff.maximum {
            return .backingOff(until: until)
        }
        if let last = memory.lastCheck, last <= now, now < last.addingTimeInterval(configuration.minimumInterval) {
            return .tooSoon(nextCheck: last.addingTimeInterval(configuration.minimumInterval))
        }
        return nil
    }

    private func fetch(startedAt start: Date) async -> FetchOutcome {
        memory.lastCheck = start
        let serving = source.status.serving.version
        var headers: [String: String] = [:]
        if let version = memory.version, version == serving {
            headers["If-None-Match"] = memory.etag
            headers["If-Modified-Since"] = memory.lastModified
        }
        let limit = max(0, configuration.maximumBytes)
        let request = HTTPRequest(
            url: url, headers: headers, requestTimeout: configuration.requestTimeout,
            resourceTimeout: configuration.resourceTimeout, maximumBytes: limit)
        let reply = await HTTPTransfer.receive(
            transport.start(request), limit: limit, resourceTimeout: configuration.resourceTimeout)
        let outcome: FetchOutcome
        var upToDate = false
        switch reply {
        case .tooLarge(let limit): outcome = .tooLarge(limit: limit)
        case .failed(let reason): outcome = .transportError(reason)
        case .response(304, _, _) where !headers.isEmpty:
            outcome = .notModified
            upToDate = true
        case .response(200, let fields, let body):
            let installed = await install(body, validators: fields)
            outcome = installed.outcome
            upToDate = installed.upToDate
        case .response(let status, _, _): outcome = .httpStatus(status)
        }
        conclude(outcome, upToDate: upToDate, startedAt: start)
        return outcome
    }

    /// Hands the body to the source; keeps the response's validators when the bundle is the
    /// one serving afterwards (installed now, or the very version already serving: the app is
    /// up to date then).
    private func install(_ body: Data, validators fields: [String: String]) async -> (outcome: FetchOutcome, upToDate: Bool) {
        do {
            let manifest = try await source.installInBackground(body)
            remember(fields, version: manifest.version)
            return (.installed(version: manifest.version), true)
        } catch {
            if error.kind == .notNewer, let version = Self.version(of: body), version == source.status.serving.version {
                remember(fields, version: version)
                return (.refused(error), true)
            }
            return (.refused(error), false)
        }
    }

    private func remember(_ fields: [String: String], version: Int64) {
        memory.etag = fields["etag"]
        memory.lastModified = fields["last-modified"]
        memory.version = fields["etag"] == nil && fields["last-modified"] == nil ? nil : version
    }

    /// The version a bundle's manifest states (for matching a refused bundle to the one serving).
    private static func version(of body: Data) -> Int64? {
        guard let bundle = try? PolicyBundle(data: body) else { return nil }
        return try? BundleManifest.decode(bundle.manifestBytes).version
    }

    /// Counts the outcome, sets or clears the backoff, keeps the record and saves the memory.
    private func conclude(_ outcome: FetchOutcome, upToDate: Bool, startedAt start: Date) {
        let end = source.configuration.clock.now()
        if outcome.isFailure {
            memory.consecutiveFailures += 1
            let wait = configuration.backoff.delay(afterFailures: memory.consecutiveFailures, random: configuration.random())
            memory.backingOffUntil = end.addingTimeInterval(wait)
        } else {
            memory.consecutiveFailures = 0
            memory.backingOffUntil = nil
            if upToDate { memory.lastSuccess = end }
        }
        let record = FetchRecord(time: start, outcome: outcome)
        history.append(record)
        if history.count > 20 { history.removeFirst(history.count - 20) }
        if let problem = store?.save(memory) {
            storageWarnings.append("could not save \(FetchStore.fileName) (\(problem)); the next launch may download again")
            if storageWarnings.count > 20 { storageWarnings.removeFirst(storageWarnings.count - 20) }
        }
        configuration.onCheck?(record)
    }

    // MARK: Status

    /// What the fetcher did last and what holds the next check back.
    public var status: FetchStatus {
        var next: Date?
        var backingOff: Date?
        switch waitingUntil(source.configuration.clock.now()) {
        case .backingOff(let until):
            next = until
            backingOff = until
        case .tooSoon(let time): next = time
        default: break
        }
        return FetchStatus(
            url: url, lastCheck: history.last, lastSuccess: memory.lastSuccess, consecutiveFailures: memory.consecutiveFailures,
            backingOffUntil: backingOff, nextCheck: next,
            etag: memory.version == nil ? nil : memory.etag, lastModified: memory.version == nil ? nil : memory.lastModified,
            history: history, storageWarnings: storageWarnings)
    }
}

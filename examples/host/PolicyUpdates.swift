// Fetching policy bundles as an app does, as docs/bundles.md ("Fetching bundles") shows it:
// the region between the `snippet` markers is that page's block, checked by DocumentationTests.
// Built with the example so the page's code cannot stop compiling unnoticed.
// snippet: begin
import Foundation
import PermitDelivery
import PermitFetch

/// Keeps the app's policy up to date from one address; call `appBecameActive()` at launch and
/// whenever the app comes to the foreground.
final class PolicyUpdates: Sendable {
    let source: PolicySource
    let fetcher: BundleFetcher

    init(source: PolicySource, bundleURL: URL) {
        self.source = source  // verifies, installs, keeps the last good bundle (above)
        fetcher = BundleFetcher(
            url: bundleURL,  // e.g. https://cdn.example.com/permit/polite.permitbundle
            source: source,  // its `directory` also keeps the fetcher's bundle-fetcher.json
            configuration: .init(
                maximumBytes: 64 << 10,  // the defaults, spelled out
                requestTimeout: 15,  // seconds to connect, and between bytes
                resourceTimeout: 60,  // seconds for the whole transfer
                minimumInterval: 15 * 60,  // a check sooner than this sends nothing
                backoff: FetchBackoff(initial: 300, multiplier: 2, maximum: 6 * 3600, jitter: 0.5),
                onCheck: { record in print("permit fetch: \(record)") }))  // your logger
    }

    /// Checks off the main actor; it never throws, and sends a request only when due.
    func appBecameActive() {
        Task { await fetcher.check() }
    }

    /// For a diagnostics screen: what serves and why, then how the downloads go.
    func diagnostics() async -> [String] {
        let delivery = source.status
        let fetch = await fetcher.status
        var lines = ["serving: \(delivery.serving)", "falls back to: \(delivery.fallback.map(\.description) ?? "-")"]
        lines.append("download: \(fetch)")  // last check 2026-…: installed version 8; next check from …
        lines += delivery.events.suffix(5).map { "policy: \($0)" }  // installs and refusals, with reasons
        lines += fetch.storageWarnings
        return lines
    }
}
// snippet: end

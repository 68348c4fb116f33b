import Foundation

/// The bytes a `DurableStore` keeps: JSON with a layout version, bounded in size.
///
/// Cross-platform and pure, so everything the Keychain store decides about its item's
/// contents is tested here; the Keychain shim only moves the bytes.
public enum DurableLedgerCoding {
    /// The largest item written. Keychain items are meant for small secrets, and the durable
    /// part is a few counters: this bound is far above what a valid policy can produce
    /// (16 state keys within the ledger's 4 KiB state limit, plus three histories).
    public static let byteLimit = 8192

    /// The item's bytes: sorted-key JSON, so an unchanged part writes identical bytes.
    public static func encode(_ durable: DurableLedger, location: String) throws(LedgerStoreError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(durable)
        } catch {
            throw LedgerStoreError(location: location, reason: "cannot encode the durable ledger: \(error)")
        }
        guard data.count <= byteLimit else {
            throw LedgerStoreError(
                location: location,
                reason: "the durable ledger would take \(data.count) bytes, more than the \(byteLimit) allowed; "
                    + "mark fewer keys in remember_durable")
        }
        return data
    }

    /// Reads an item's bytes. Damage or a newer layout is reported and read as no item: the
    /// app then behaves as after a reinstall that forgot, never as after a wrong restore.
    public static func decode(_ data: Data, location: String) -> DurableLoadResult {
        guard data.count <= byteLimit else {
            return DurableLoadResult(
                durable: nil,
                warnings: ["\(location): the durable ledger is \(data.count) bytes, more than \(byteLimit); ignored"])
        }
        struct Header: Decodable { let version: Int }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: data) else {
            return DurableLoadResult(
                durable: nil, warnings: ["\(location): the durable ledger is damaged (not JSON with a version); ignored"])
        }
        guard header.version <= DurableLedger.currentVersion else {
            return DurableLoadResult(
                durable: nil,
                warnings: [
                    "\(location): the durable ledger has layout \(header.version), newer than this build's "
                        + "\(DurableLedger.currentVersion); ignored (left in place for the newer build)"
                ])
        }
        if let duplicate = JSONDuplicateKeys.first(in: data) {
            return DurableLoadResult(
                durable: nil,
                warnings: ["\(location): the durable ledger is damaged (\(duplicate.path) appears twice); ignored"])
        }
        do {
            let durable = try decoder.decode(DurableLedger.self, from: data)
            if let problem = durable.valueProblem {
                return DurableLoadResult(durable: nil, warnings: ["\(location): the durable ledger is damaged (\(problem)); ignored"])
            }
            return DurableLoadResult(durable: durable)
        } catch {
            return DurableLoadResult(durable: nil, warnings: ["\(location): the durable ledger is damaged (\(error)); ignored"])
        }
    }
}

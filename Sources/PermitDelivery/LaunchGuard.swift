import Foundation

/// Marks, in `policy-source.running` beside the delivery store, which delivered bundle is being
/// loaded, installed or asked for a decision right now, so that the next launch knows when the
/// process ended in the middle of one (iOS's watchdog kills an app whose main thread is held
/// too long, and a policy restored at every launch would then kill it at every launch).
///
/// The file is one page mapped shared into memory: a mark is two stores into that page, with
/// no system call and no flush. The page belongs to the file in the kernel's page cache, which
/// a process's death (a kill, a crash, the watchdog) leaves intact, so the next launch reads
/// what the dead process last wrote. A power loss may lose a mark; that is not the case this
/// guards against.
///
/// Two slots, so that an install on one thread and a decision on another never overwrite each
/// other's mark: `load` (restoring or installing a bundle: one at a time, under the source's
/// install gate or in its initializer) and `decide` (the engine's events: one at a time, as one
/// source serves one engine). Layout, little-endian: bytes 0–7 the magic `PRMTRUN1`; each
/// slot 16 bytes (activity, then version), the `load` slot at 8, the `decide` slot at 24.
final class LaunchGuard: @unchecked Sendable {
    static let fileName = "policy-source.running"
    /// Bytes mapped: one page on every platform Permit runs on.
    static let size = 4096
    private static let magic: UInt64 = 0x314E_5552_544D_5250  // "PRMTRUN1" read little-endian

    /// What a slot says the process was doing.
    enum Activity: UInt64, Sendable {
        case idle = 0
        case loading = 1
        case installing = 2
        case deciding = 3

        /// `loading`, as the reason for setting a bundle aside says it.
        var words: String {
            switch self {
            case .idle: "idle"
            case .loading: "loading (restored at launch)"
            case .installing: "being installed"
            case .deciding: "deciding"
            }
        }
    }

    /// Where a mark goes.
    enum Slot: Int, Sendable, CaseIterable {
        case load = 0
        case decide = 1

        var offset: Int { 8 + rawValue * 16 }
    }

    /// What a slot held when the guard was opened: a bundle the previous process was running
    /// when it ended.
    struct LeftOver: Sendable, Equatable {
        var activity: Activity
        var version: Int64
    }

    private let page: UnsafeMutableRawPointer
    /// What the slots held at opening (before this process marked anything).
    let leftOvers: [LeftOver]

    /// Opens (or creates) the guard in `directory`; throws why it cannot (then the source runs
    /// without one and says so).
    init(directory: URL) throws(StoreError) {
        let path = directory.appendingPathComponent(LaunchGuard.fileName).path
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(description: "cannot open \(path) (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(LaunchGuard.size)) == 0 else {
            throw StoreError(description: "cannot size \(path) (\(String(cString: strerror(errno))))")
        }
        let mapped = mmap(nil, LaunchGuard.size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw StoreError(description: "cannot map \(path) (\(String(cString: strerror(errno))))")
        }
        page = mapped
        var found: [LeftOver] = []
        if page.load(as: UInt64.self) == LaunchGuard.magic {
            for slot in Slot.allCases {
                let raw = UInt64(littleEndian: page.load(fromByteOffset: slot.offset, as: UInt64.self))
                let version = Int64(littleEndian: page.load(fromByteOffset: slot.offset + 8, as: Int64.self))
                if let activity = Activity(rawValue: raw), activity != .idle, version > 0 {
                    found.append(LeftOver(activity: activity, version: version))
                }
            }
        }
        leftOvers = found
    }

    deinit {
        munmap(page, LaunchGuard.size)
    }

    /// Forgets what the previous process left (once it is set aside and saved), and marks the
    /// page as this format's.
    func reset() {
        for slot in Slot.allCases { clear(slot) }
        page.storeBytes(of: LaunchGuard.magic, as: UInt64.self)
    }

    /// Marks `slot` as running bundle `version`: the version first, so that the page never
    /// holds an activity with another bundle's version.
    func mark(_ slot: Slot, _ activity: Activity, version: Int64) {
        page.storeBytes(of: version.littleEndian, toByteOffset: slot.offset + 8, as: Int64.self)
        page.storeBytes(of: activity.rawValue.littleEndian, toByteOffset: slot.offset, as: UInt64.self)
    }

    /// Marks `slot` as idle.
    func clear(_ slot: Slot) {
        page.storeBytes(of: Activity.idle.rawValue, toByteOffset: slot.offset, as: UInt64.self)
    }

    /// Why a guard cannot be opened.
    struct StoreError: Error, CustomStringConvertible {
        var description: String
    }
}

import CLuaShim
import Foundation
import PermitCore

/// The list `plan_reminders` returned last time, with its contents as bytes, so an unchanged
/// list is not read again.
///
/// A policy returns the same window of reminders on nearly every launch and foreground, and
/// reading nine reminders with two tables of translations each into Swift values cost more
/// than anything else on that path (17k instructions per simulated event of the reminders
/// pack). `permit_reminder_list_bytes` writes a list's contents in a few C calls; equal bytes
/// mean equal contents (it is an exact encoding, not a hash), and the reader's result depends
/// only on those contents and the VM's limits, which never change, so the list read last time
/// is the answer. Anything the encoding refuses, or a list that changed, is read as before.
///
/// One memo belongs to one VM and is used under its lock (so its state needs no dynamic
/// exclusivity check); its buffers are reused from call to call.
final class ReminderListMemo {
    /// The bytes of the list `reminders` was read from (`lastLength` of them).
    @exclusivity(unchecked) private var last: [UInt8] = Array(repeating: 0, count: 2_048)
    @exclusivity(unchecked) private var lastLength = 0
    /// What the list with those bytes read as; `nil` until a list was read.
    @exclusivity(unchecked) private var reminders: [ReminderRequest]?
    /// The bytes of the list being read (`currentLength` of them; -1 when it has none).
    @exclusivity(unchecked) private var current: [UInt8] = Array(repeating: 0, count: 2_048)
    @exclusivity(unchecked) private var currentLength = -1
    /// How many lists were answered unread (for tests that the memo is used at all).
    @exclusivity(unchecked) private(set) var hits = 0

    /// The larger of the two byte buffers: at most PERMIT_REMINDER_LIST_MAX_BYTES, whatever
    /// the policy returns (tests hold it to that).
    var bufferBytes: Int { max(last.count, current.count) }

    /// The list read last time, when the list at `index` has the same contents; otherwise
    /// `nil`, keeping the new list's bytes for `remember`.
    func unchanged(at index: Int32, on L: OpaquePointer) -> [ReminderRequest]? {
        currentLength = encode(at: index, on: L)
        guard currentLength >= 0, currentLength == lastLength, let reminders else { return nil }
        let equal = current.withUnsafeBytes { now in
            last.withUnsafeBytes { before in memcmp(now.baseAddress!, before.baseAddress!, currentLength) == 0 }
        }
        guard equal else { return nil }
        hits += 1
        return reminders
    }

    /// Keeps `reminders`, read from the list `unchanged` was last asked about, for the next call.
    func remember(_ reminders: [ReminderRequest]) {
        guard currentLength >= 0 else { return }
        swap(&last, &current)
        lastLength = currentLength
        currentLength = -1
        self.reminders = reminders
    }

    /// Writes the list's bytes into `current`, growing it once when they do not fit; -1 when
    /// the list cannot be written (the reader then reads it, and nothing is kept).
    private func encode(at index: Int32, on L: OpaquePointer) -> Int {
        var length = 0
        for _ in 0..<2 {
            let status = current.withUnsafeMutableBufferPointer { buffer in
                permit_reminder_list_bytes(L, index, buffer.baseAddress, buffer.count, &length)
            }
            guard status == 0 else { return -1 }
            if length <= current.count { return length }
            current = Array(repeating: 0, count: length)
        }
        return -1
    }
}

import PermitCore

/// A value used by one thread at a time (a policy's VM and what lives in it) whose calls run on
/// a `PolicyThread` when there is a deadline, so that no caller waits for one past it.
///
/// A call that overruns the deadline is abandoned: the caller gets `.overran` at once, the value
/// is never entered again (every later call answers `.abandoned` without waiting, and
/// `withLock` runs nothing), and the thread frees it when, if ever, the call returns. The lock
/// callers queue on is never the one an abandoned call still needs: a stuck call holds nothing
/// but the thread it runs on.
final class DeadlineLocked<Value>: @unchecked Sendable {
    /// How a call went.
    enum Outcome<Result> {
        /// It returned this.
        case done(Result)
        /// It ran past the deadline and was abandoned with the value.
        case overran
        /// An earlier call was abandoned: the value is gone, nothing ran.
        case abandoned
    }

    /// The value's memory, kept alive by whoever may still use it (the owner, and the job of an
    /// abandoned call); `nil` once freed after an abandoned call.
    private final class Cell: @unchecked Sendable {
        let value: UnsafeMutablePointer<Value?>

        init(_ value: Value) {
            self.value = .allocate(capacity: 1)
            self.value.initialize(to: value)
        }

        deinit {
            value.deinitialize(count: 1)
            value.deallocate()
        }
    }

    private let cell: Cell
    /// Held by the caller for a whole call; `true` once a call was abandoned.
    private let gate = Locked(false)
    /// Where calls run; `nil`: on the caller's thread, with no deadline.
    private let thread: PolicyThread?
    /// How long a caller waits for a call on `thread`.
    let deadlineNanoseconds: Int

    /// Guards `value`; with a `thread`, every `run` goes there and waits at most `deadlineNanoseconds`.
    init(_ value: Value, thread: PolicyThread?, deadlineNanoseconds: Int) {
        cell = Cell(value)
        self.thread = thread
        self.deadlineNanoseconds = deadlineNanoseconds
    }

    deinit {
        thread?.stop()
    }

    /// Whether calls run on a thread of their own (else on the caller's, with no deadline).
    var hasThread: Bool { thread != nil }

    /// Whether a call was abandoned (the value is gone for good).
    var isAbandoned: Bool { gate.withLock { $0 } }

    /// Runs `body` with the value on the caller's thread, when no call is in progress (quick
    /// reads between calls: the trace, coverage, memory figures); `nil`, running nothing, once a
    /// call was abandoned.
    @discardableResult
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result? {
        try gate.withLock { (abandoned: inout Bool) throws(Failure) -> Result? in
            guard !abandoned else { return nil }
            return try body(&cell.value.pointee!)
        }
    }

    /// Runs `body` with the value on the thread, waiting at most the deadline (on the caller's
    /// thread when there is none). Callers queue: one call at a time.
    func run<Result>(_ body: @escaping (inout Value) -> Result) -> Outcome<Result> {
        gate.withLock { abandoned in
            guard !abandoned else { return .abandoned }
            let cell = self.cell
            guard let thread else { return .done(body(&cell.value.pointee!)) }
            let box = JobResult<Result>()
            let handover = thread.perform(
                { box.value = body(&cell.value.pointee!) },
                // The value is freed on the thread as soon as the abandoned call lets go of it.
                onAbandon: { cell.value.pointee = nil },
                waitingAtMost: deadlineNanoseconds)
            switch handover {
            case .finished:
                if let result = box.value { return .done(result) }
                abandoned = true
                return .overran
            case .abandoned:
                abandoned = true
                return .overran
            case .notTaken:
                // The thread was never given a processor in time; the value is untouched, so the
                // call runs here, under the VM's own limits, rather than failing a healthy policy.
                return .done(body(&cell.value.pointee!))
            }
        }
    }
}

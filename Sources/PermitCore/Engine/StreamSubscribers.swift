/// The open `AsyncStream`s of one broadcaster, each under an id of its own, so a stream that
/// ends removes exactly itself.
///
/// Why a type: the status and the decision-record broadcasters keep subscribers the same way
/// and differ only in what a new subscriber gets first; this is the part they share. It is a
/// value kept inside the broadcaster's lock, so it needs no lock of its own.
struct StreamSubscribers<Element: Sendable>: Sendable {
    private var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    private var nextID = 0

    /// Whether no stream is open.
    var isEmpty: Bool { continuations.isEmpty }
    /// How many streams are open.
    var count: Int { continuations.count }

    /// Registers `continuation` and returns the id its termination handler removes.
    mutating func add(_ continuation: AsyncStream<Element>.Continuation) -> Int {
        let id = nextID
        nextID += 1
        continuations[id] = continuation
        return id
    }

    /// Forgets the stream registered under `id`.
    mutating func remove(_ id: Int) { continuations.removeValue(forKey: id) }

    /// Sends `element` to every open stream.
    func yield(_ element: Element) {
        for continuation in continuations.values { continuation.yield(element) }
    }

    /// Ends every open stream (the broadcaster is going away).
    func finishAll() {
        for continuation in continuations.values { continuation.finish() }
    }
}

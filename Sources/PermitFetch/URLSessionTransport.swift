import Foundation
import PermitCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GETs through URLSession, one ephemeral session per request: no cache (the fetcher sends
/// its own conditional headers and must see the 304), no cookies, redirects followed, the
/// body handed over chunk by chunk as it arrives. The delegate stops the task itself once the
/// body passes the cap, on URLSession's queue: the fetcher reads the events on the shared
/// concurrency pool, and URLSession would go on buffering a huge body meanwhile.
struct URLSessionTransport: HTTPTransport {
    func start(_ request: HTTPRequest) -> HTTPExchange {
        let (events, continuation) = AsyncThrowingStream<HTTPEvent, any Error>.makeStream()
        // Whole seconds, rounded up: swift-corelibs-foundation (Linux) truncates the request
        // timeout to whole seconds, and 0 would end every request at once. The fetcher keeps
        // the resource timeout to the fraction itself (`HTTPTransfer`).
        let requestTimeout = max(1, request.requestTimeout.rounded(.up))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = requestTimeout
        configuration.timeoutIntervalForResource = max(1, request.resourceTimeout.rounded(.up))
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let session = URLSession(
            configuration: configuration, delegate: StreamingDelegate(continuation, maximumBytes: request.maximumBytes), delegateQueue: nil)
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: requestTimeout)
        urlRequest.httpMethod = "GET"
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = session.dataTask(with: urlRequest)
        // The session keeps its delegate until it is invalidated: stopping the task frees both.
        let stop: @Sendable () -> Void = {
            task.cancel()
            session.invalidateAndCancel()
        }
        continuation.onTermination = { _ in stop() }
        task.resume()
        return HTTPExchange(events: events, cancel: stop)
    }
}

/// Turns URLSession's delegate calls into the exchange's events.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let continuation: AsyncThrowingStream<HTTPEvent, any Error>.Continuation
    private let maximumBytes: Int
    /// Body bytes handed over so far.
    private let received = Locked(0)

    init(_ continuation: AsyncThrowingStream<HTTPEvent, any Error>.Continuation, maximumBytes: Int) {
        self.continuation = continuation
        self.maximumBytes = maximumBytes
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            continuation.finish(throwing: URLError(.badServerResponse))
            completionHandler(.cancel)
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        continuation.yield(.head(status: http.statusCode, headers: headers))
        // The fetcher refuses a declared length over the cap; no byte of that body is needed.
        if http.expectedContentLength > Int64(maximumBytes) {
            completionHandler(.cancel)
            dataTask.cancel()
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.body(data))
        let total = received.withLock { count in
            count += data.count
            return count
        }
        if total > maximumBytes { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        session.finishTasksAndInvalidate()
    }
}

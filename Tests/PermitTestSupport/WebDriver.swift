import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small client of the W3C WebDriver protocol, driving Debian's `chromedriver` (package
/// chromium-driver) and through it a headless Chromium: the tests open a page, type, click and
/// read it as a person would. Plain HTTP and JSON (URLSession), no Selenium.
public final class WebDriver: @unchecked Sendable {
    /// The chromedriver process this client started.
    private let driver: Process
    /// `http://127.0.0.1:PORT` of chromedriver.
    private let base: URL
    /// The browser session.
    private let session: String
    private let profile: URL

    /// The key WebDriver names an element reference by.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// chromedriver: `PERMIT_CHROMEDRIVER`, else `chromedriver` on the PATH; nil when there is none.
    public static var executable: URL? {
        if let path = ProcessInfo.processInfo.environment["PERMIT_CHROMEDRIVER"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("chromedriver")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Starts chromedriver on a free port and a headless browser session `width`×`height`.
    public init(width: Int = 1400, height: Int = 1000) async throws {
        guard let executable = Self.executable else {
            throw BrowserError(
                "no chromedriver: `make test` installs it (scripts/setup.sh browser installs Debian's chromium-driver), or set PERMIT_CHROMEDRIVER"
            )
        }
        guard let browser = Browser.executable else {
            throw BrowserError("no browser: `make test` installs chromium (scripts/setup.sh browser), or set PERMIT_BROWSER")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--port=0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        driver = process
        // chromedriver says "ChromeDriver was started successfully on port N."
        var printed = ""
        var port: Int?
        let deadline = Date().addingTimeInterval(30)
        while port == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
            port = printed.firstMatch(of: /on port (\d+)/).flatMap { Int($0.output.1) }
        }
        guard let port else {
            process.terminate()
            throw BrowserError("chromedriver did not say its port: \(printed)")
        }
        base = URL(string: "http://127.0.0.1:\(port)")!
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("permit-webdriver-\(UUID().uuidString)")
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": browser.path,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                            "--window-size=\(width),\(height)", "--user-data-dir=\(profile.path)",
                        ],
                    ],
                ]
            ]
        ]
        var started: String?
        for _ in 0..<50 where started == nil {
            if let answer = try? await Self.call(base, "POST", "/session", capabilities) {
                started = (answer as? [String: Any])?["sessionId"] as? String
            } else {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        guard let started else {
            process.terminate()
            throw BrowserError("chromedriver started no browser session")
        }
        session = started
    }

    /// Ends the session and chromedriver.
    public func quit() async {
        _ = try? await call("DELETE", "")
        driver.terminate()
        driver.waitUntilExit()
        try? FileManager.default.removeItem(at: profile)
    }

    /// One WebDriver call: its `value`, or an error with WebDriver's message.
    static func call(_ base: URL, _ method: String, _ path: String, _ body: Any? = nil) async throws -> Any? {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        request.timeoutInterval = 60
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any]
        let value = json?["value"]
        if let status = (response as? HTTPURLResponse)?.statusCode, status >= 400 {
            let message = (value as? [String: Any])?["message"] as? String ?? String(decoding: data, as: UTF8.self)
            throw BrowserError("WebDriver \(method) \(path): \(message)")
        }
        return value
    }

    func call(_ method: String, _ path: String, _ body: Any? = nil) async throws -> Any? {
        try await Self.call(base, method, "/session/\(session)" + path, body)
    }

    /// Opens `url`.
    public func open(_ url: URL) async throws {
        _ = try await call("POST", "/url", ["url": url.absoluteString])
    }

    /// The first element matching the CSS `selector`.
    public func element(_ selector: String) async throws -> String {
        let value = try await call("POST", "/element", ["using": "css selector", "value": selector])
        guard let id = (value as? [String: Any])?[Self.elementKey] as? String else { throw BrowserError("no element \(selector)") }
        return id
    }

    /// Every element matching `selector`.
    public func elements(_ selector: String) async throws -> [String] {
        let value = try await call("POST", "/elements", ["using": "css selector", "value": selector])
        return ((value as? [[String: Any]]) ?? []).compactMap { $0[Self.elementKey] as? String }
    }

    /// Clicks the element.
    public func click(_ element: String) async throws {
        _ = try await call("POST", "/element/\(element)/click", [String: Any]())
    }

    /// Types `text` into the element, as keystrokes.
    public func type(_ text: String, into element: String) async throws {
        _ = try await call("POST", "/element/\(element)/value", ["text": text])
    }

    /// The element's rendered text.
    public func text(of element: String) async throws -> String {
        (try await call("GET", "/element/\(element)/text") as? String) ?? ""
    }

    /// Runs `script` in the page and returns its result.
    public func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await call("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// A PNG of the window.
    public func screenshot() async throws -> Data {
        guard let base64 = try await call("GET", "/screenshot") as? String, let data = Data(base64Encoded: base64) else {
            throw BrowserError("no screenshot")
        }
        return data
    }

    /// Waits until `condition` holds (polling every 100 ms), or fails naming `what`.
    public func wait(
        _ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if (try? await condition()) == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BrowserError("waited \(timeout) for \(what)")
    }
}

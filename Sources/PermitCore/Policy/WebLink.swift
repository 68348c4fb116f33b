import Foundation

/// A link to a web page on a prompt, row or page (`link` and `url`): "More about
/// notifications" beside the buttons, opening the app's FAQ.
///
/// Policies arrive over the air, so what a link may open is bounded here, not left to each
/// host: only an absolute `https://` address with a host, no user info, visible ASCII, at most
/// `maxURLBytes` bytes. A scheme that acts (`tel:`, `sms:`, `App-Prefs:`, `javascript:`, an
/// app's own) cannot be expressed; Settings has `deep_link`. The host opens the address (in
/// the browser or an in-app one, its choice) and sends the answer `link`; what the link is on
/// stays on screen.
public struct WebLink: Sendable, Hashable {
    /// `link`: the link's label, as the user reads it.
    public var text: LocalizedText
    /// `url`: the page's address, per language as the text is (FAQ pages are per language).
    public var address: LocalizedText

    /// The longest address a link may carry, in bytes: browsers and servers handle 2,000
    /// everywhere, and a longer one is no page a user is sent to.
    public static let maxURLBytes = 2_000

    /// A link with its label and the page's address.
    public init(text: LocalizedText, address: LocalizedText) {
        self.text = text
        self.address = address
    }

    /// The page to open, once the address is resolved for the device's locale (as every text
    /// of an outcome is); `nil` while it still holds translations.
    public var url: URL? {
        guard case .plain(let address) = address, Self.problem(with: address) == nil else { return nil }
        return URL(string: address)
    }

    /// What is wrong with `address` as a link's page, in words that say what to do, or `nil`
    /// when it is an absolute `https://` URL with a host, no user info and no character a URL
    /// must encode.
    public static func problem(with address: String) -> String? {
        let bytes = address.utf8
        guard bytes.count <= maxURLBytes else {
            return "an address of \(bytes.count) bytes is longer than the \(maxURLBytes) allowed"
        }
        // Visible ASCII only: a space, a control character or a letter outside ASCII would be
        // read differently by different URL parsers (percent-encode it instead).
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "an address holds only visible ASCII characters; percent-encode spaces and other characters"
        }
        let scheme = "https://"
        guard bytes.count > scheme.utf8.count, address.prefix(scheme.count).lowercased() == scheme else {
            return "give an absolute https:// address (a link opens web pages only; Settings pages have deep_link, "
                + "and no other scheme is opened)"
        }
        let rest = address.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else {
            return "an address carries no user name or password (user@host); give the page's plain https:// address"
        }
        let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }),
            URL(string: address)?.host?.isEmpty == false
        else {
            return "an https:// address needs a host (https://www.example.com/faq)"
        }
        return nil
    }
}

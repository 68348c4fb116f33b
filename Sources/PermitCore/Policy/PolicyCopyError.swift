/// Why texts cannot be a pack's copy: the locale and key at fault, when there is one.
public struct PolicyCopyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The locale (the copy file's name without `.yaml`) at fault.
    public var locale: String?
    /// The key at fault.
    public var key: String?
    /// What is wrong and what to do.
    public var message: String

    /// A problem of `key` in `locale`'s copy.
    public init(locale: String?, key: String?, message: String) {
        self.locale = locale
        self.key = key
        self.message = message
    }

    /// `copy/de.yaml: welcome.title: ...`.
    public var description: String {
        [locale.map { "copy/\($0).yaml" }, key, message].compactMap(\.self).joined(separator: ": ")
    }
}

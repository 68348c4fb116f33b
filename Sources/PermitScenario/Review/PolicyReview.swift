import Foundation
import PermitCore

/// `permit check --review`: App Store and HIG risks in a policy (docs/review.md), found two
/// ways. A static scan reads every line of the file, so a text no probe reaches is still seen;
/// probe runs ask `decide` through the real engine, so texts built at run time and the
/// decision on `app_launch` are seen as an app would show them.
public enum PolicyReview {
    /// Accept-button words that say the user grants something in the pre-prompt, as the system
    /// alert's own button does; compared case-insensitively with the whole button text.
    static let allowWords: Set<String> = [
        "allow", "allow notifications", "yes, allow", "erlauben", "zulassen", "autoriser", "permitir", "consenti",
    ]
    /// The system alert's decline button, which a pre-prompt must not copy.
    static let systemDeclineWords: Set<String> = ["don't allow", "don’t allow", "nicht erlauben", "ne pas autoriser"]
    /// The system alert's title ("“App” Would Like to Send You Notifications").
    static let systemTitleFragment = "would like to send you notifications"
    /// Private Settings URL schemes App Review rejects.
    static let privateURLFragments = ["app-prefs:", "prefs:root"]

    /// The static scan: every string literal of `source` that is a private Settings URL, an
    /// "Allow" button or a copy of the system alert's wording, by line.
    public static func scan(source: String, file: String) -> [ReviewFinding] {
        var found: [ReviewFinding] = []
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let location = "\(file):\(index + 1)"
            let code = String(line)
            for fragment in privateURLFragments where code.lowercased().contains(fragment) {
                found.append(
                    ReviewFinding(
                        location: location, rule: .privateSettingsURL,
                        message: "the text holds \"\(fragment)\", a private Settings URL; use deep_link = \"app_settings\" or "
                            + "\"notification_settings\" (the public openSettingsURLString / openNotificationSettingsURLString)"))
            }
            for (literal, prefix) in literalsWithPrefixes(in: code) {
                // A literal the line shows is a title or message is no button.
                let field = field(before: prefix)
                found += textFindings(literal, at: location, role: nil, mayBeButton: field == nil || field == "accept")
            }
        }
        return found
    }

    /// What one text says that a reviewer would object to. `role` names the button when known
    /// (`accept`, `decline`); a literal of the static scan has none, so a whole text equal to an
    /// allow word counts.
    static func textFindings(_ text: String, at location: String, role: String?, mayBeButton: Bool = true) -> [ReviewFinding] {
        let normalized = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        var found: [ReviewFinding] = []
        if mayBeButton, role == nil || role == "accept", allowWords.contains(normalized) || isAllowPhrase(normalized) {
            found.append(
                ReviewFinding(
                    location: location, rule: .allowButton,
                    message: "a pre-prompt button says \"\(text)\": nothing is allowed in the app's own screen; "
                        + "word it as a step, such as \"Continue\" or \"Next\""))
        }
        if systemDeclineWords.contains(normalized) || normalized.contains(systemTitleFragment) {
            found.append(
                ReviewFinding(
                    location: location, rule: .imitatesSystemAlert,
                    message: "\"\(text)\" copies the system alert's wording; say why notifications help instead"))
        }
        if role != nil, privateURLFragments.contains(where: normalized.contains) {
            found.append(
                ReviewFinding(
                    location: location, rule: .privateSettingsURL,
                    message: "a text holds a private Settings URL (\(text)); use the decision's deep_link"))
        }
        return found
    }

    /// "allow alerts", "allow all": a button-sized text (three words at most) that starts with
    /// "allow"; a sentence such as "Allow notifications and we will remind you" is not a button,
    /// nor is a question ("Allow notifications?" is a title).
    static func isAllowPhrase(_ normalized: String) -> Bool {
        normalized.hasPrefix("allow ") && normalized.split(separator: " ").count <= 3 && !normalized.hasSuffix("?")
    }

    /// The prompt fields a literal of the static scan may sit in.
    static let promptFields = ["title", "message", "accept", "decline", "open", "cancel", "reason", "variant"]

    /// The prompt field a literal is the value of, read from the line before it: `title` for
    /// `title = "..."` and `title = { en = "...", de = "..." }`; nil when the line names none
    /// (a `local` of copy, a table of texts spread over lines), and the literal counts as any.
    static func field(before prefix: String) -> String? {
        var words: [Substring] = []
        var word = ""
        for character in prefix {
            if character.isLetter || character == "_" {
                word.append(character)
            } else {
                if character == "=", !word.isEmpty { words.append(Substring(word)) }
                if character != " " { word = "" }
            }
        }
        // The last field named before the literal; a translation's key (`en =`) is skipped.
        return words.reversed().first { promptFields.contains(String($0)) }.map(String.init)
    }

    /// The double- and single-quoted string literals of one line of Lua (escapes kept as
    /// written; a long `[[...]]` string is seen by the probes only).
    static func stringLiterals(in line: String) -> [String] { literalsWithPrefixes(in: line).map(\.text) }

    /// The string literals of one line, each with the line's text before its opening quote.
    static func literalsWithPrefixes(in line: String) -> [(text: String, prefix: String)] {
        var literals: [(text: String, prefix: String)] = []
        var before = ""
        var current: String?
        var previous: Character?
        var quote: Character = "\""
        var escaped = false
        for character in line {
            if var text = current {
                if escaped {
                    text.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == quote {
                    literals.append((text, before))
                    current = nil
                    before.append(character)
                    continue
                } else {
                    text.append(character)
                }
                current = text
            } else if character == "\"" || character == "'" {
                quote = character
                current = ""
                before.append(character)
                previous = nil
                continue
            } else if character == "-", previous == "-" {
                break  // a comment runs to the end of the line
            }
            previous = current == nil ? character : nil
            if current == nil { before.append(character) }
        }
        return literals
    }
}

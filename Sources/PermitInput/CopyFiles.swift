import Foundation
import PermitCore

/// Reads a pack's copy: the `copy/<locale>.yaml` files beside its `policy.lua`, each a flat
/// table of `key: text` (docs/guide.md, "Copy as data").
///
/// Every mistake is an `InputError` naming the file, the line and the key: a nested table, a
/// key with no text, a text over the cap, a file whose name is no locale. The files are
/// bounded before they are parsed (`PolicyCopy.maxBytes` in all), so a huge file is refused
/// by its size, not read.
package enum CopyFiles {
    /// The folder of a pack that holds its copy.
    package static let folder = "copy"

    /// The copy of the pack whose policy file is `policyFile` (`.empty` when the pack has no
    /// `copy/` folder). `shownPack` is the pack's directory as errors name it (`polite`).
    package static func read(besidePolicy policyFile: URL, shownPack: String) throws(InputError) -> PolicyCopy {
        let directory = policyFile.deletingLastPathComponent().appendingPathComponent(folder)
        let shownDirectory = shownPack.isEmpty || shownPack == "." ? folder : "\(shownPack)/\(folder)"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else { return .empty }
        let start = SourceLocation(file: shownDirectory, line: 1, column: 1)
        guard isDirectory.boolValue else {
            throw InputError("copy is not a folder", at: start, hint: "a pack's copy is a folder copy/ of <locale>.yaml files")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw InputError("cannot list the folder (\(error.localizedDescription))", at: start)
        }
        var locales: [String: [String: String]] = [:]
        var bytes = 0
        for name in names {
            let shown = "\(shownDirectory)/\(name)"
            let at = SourceLocation(file: shown, line: 1, column: 1)
            guard name.hasSuffix(".yaml"), PolicyCopy.isLocaleTag(String(name.dropLast(5))) else {
                throw InputError(
                    "not a copy file", at: at,
                    hint: "copy/ holds one <locale>.yaml per language, named by its tag: en.yaml, de.yaml, zh-Hans.yaml")
            }
            let url = directory.appendingPathComponent(name)
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            bytes += size
            guard bytes <= 2 * PolicyCopy.maxBytes else {
                throw InputError(
                    "the copy files are over \(2 * PolicyCopy.maxBytes) bytes together", at: at,
                    hint: "a pack's copy holds at most \(PolicyCopy.maxBytes) bytes of keys and texts (PolicyCopy.maxBytes)")
            }
            locales[String(name.dropLast(5))] = try texts(of: url, shown: shown)
        }
        guard locales.count <= PolicyCopy.maxLocales else {
            throw InputError("\(locales.count) copy files; a pack has at most \(PolicyCopy.maxLocales) locales", at: start)
        }
        do {
            return try PolicyCopy(locales: locales)
        } catch {
            throw InputError(error.message, at: start, field: error.key)
        }
    }

    /// Every text whose placeholders are not those of the same key's text in the pack's first
    /// locale (the first of `preferred` it has a file for, else the first by name), named by its
    /// file, line and key: a translation that drops `{app}` leaves the name out, and one that
    /// misspells it has a placeholder no value fills, which fails when the text is shown.
    /// `copy` is what `read` gave for the same pack; its files are read again for the lines.
    package static func placeholderMismatches(
        in copy: PolicyCopy, besidePolicy policyFile: URL, shownPack: String, preferred: [String]
    ) -> [InputError] {
        guard let reference = preferred.first(where: { copy.locales[$0] != nil }) ?? copy.locales.keys.sorted().first else {
            return []
        }
        let directory = policyFile.deletingLastPathComponent().appendingPathComponent(folder)
        let shownDirectory = shownPack.isEmpty || shownPack == "." ? folder : "\(shownPack)/\(folder)"
        var errors: [InputError] = []
        for locale in copy.locales.keys.sorted() where locale != reference {
            let shown = "\(shownDirectory)/\(locale).yaml"
            let read = (try? entries(of: directory.appendingPathComponent("\(locale).yaml"), shown: shown)) ?? []
            let values = Dictionary(read, uniquingKeysWith: { first, _ in first })
            for (key, text) in copy.locales[locale]!.sorted(by: { $0.key < $1.key }) {
                // The first locale's text of the key; when it lacks the key (reported apart), the
                // text of the first file by name that has it.
                guard let source = ([reference] + copy.locales.keys.sorted()).first(where: { copy.locales[$0]?[key] != nil }),
                    source != locale, let problem = mismatch(text, against: copy.locales[source]![key]!, of: source)
                else { continue }
                errors.append(
                    values[key]?.error(problem.message, hint: problem.hint)
                        ?? InputError(problem.message, at: SourceLocation(file: shown, line: 1, column: 1), field: key, hint: problem.hint))
            }
        }
        return errors
    }

    /// What `text`'s placeholders lack and add against those of `sourceText`, the same key's
    /// text in the locale `source`, in words; `nil` when they are the same.
    static func mismatch(_ text: String, against sourceText: String, of source: String) -> (message: String, hint: String)? {
        guard let have = try? Set(CopyPlaceholders.names(in: text)), let want = try? Set(CopyPlaceholders.names(in: sourceText)),
            have != want
        else { return nil }
        let braced = { (names: Set<String>) in names.sorted().map { "{\($0)}" }.joined(separator: ", ") }
        var parts: [String] = []
        if !want.subtracting(have).isEmpty { parts.append("lacks \(braced(want.subtracting(have)))") }
        if !have.subtracting(want).isEmpty { parts.append("has \(braced(have.subtracting(want)))") }
        return (
            "the text \(parts.joined(separator: " and ")), unlike \(source).yaml's text of this key",
            "every language's text of a key uses the same placeholders, spelt alike (\(want.isEmpty ? "none" : braced(want))): "
                + "the policy fills them by name"
        )
    }

    /// One copy file's entries in file order, each value with its place in the file: what
    /// `texts` checks and `placeholderMismatches` names lines from.
    static func entries(of url: URL, shown: String) throws(InputError) -> [(key: String, value: YAMLValue)] {
        let text = try InputText.read(url, name: shown)
        let root = try YAMLValue.parse(
            text, file: shown, emptyHint: "a copy file holds key: text lines, like welcome.title: Stay in the loop")
        guard case .mapping = root.node else {
            throw root.error("a copy file is a table of key: text lines, got \(root.kindName)")
        }
        return try root.table()
    }

    /// One copy file's texts by key.
    static func texts(of url: URL, shown: String) throws(InputError) -> [String: String] {
        var texts: [String: String] = [:]
        for (key, value) in try entries(of: url, shown: shown) {
            if let problem = PolicyCopy.keyProblem(key) { throw value.error(problem) }
            guard case .scalar = value.node, !value.isNull else {
                throw value.error(
                    "expected the text of \"\(key)\", got \(value.kindName)",
                    hint: "copy files are flat: one key: text per line (write nested names as welcome.title)")
            }
            let text = try value.string()
            guard text.utf8.count <= PolicyCopy.maxTextBytes else {
                throw value.error("the text is \(text.utf8.count) bytes; a text is at most \(PolicyCopy.maxTextBytes)")
            }
            do {
                _ = try CopyPlaceholders.names(in: text)
            } catch {
                throw value.error(error.message)
            }
            texts[key] = text
        }
        return texts
    }
}

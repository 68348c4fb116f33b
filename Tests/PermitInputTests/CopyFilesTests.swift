import Foundation
import PermitCore
import Testing

@testable import PermitInput

/// A pack's `copy/<locale>.yaml` files: read into one copy, every mistake named with its file,
/// line and key.
@Suite struct CopyFilesTests {
    static func read(_ files: [String: String]) throws(InputError) -> PolicyCopy {
        let pack = FileManager.default.temporaryDirectory.appendingPathComponent("permit-copy-\(UUID().uuidString)/pack")
        try! FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: pack.deletingLastPathComponent()) }
        try! Data("return {}".utf8).write(to: pack.appendingPathComponent("policy.lua"))
        if !files.isEmpty {
            try! FileManager.default.createDirectory(at: pack.appendingPathComponent("copy"), withIntermediateDirectories: true)
        }
        for (name, text) in files { try! Data(text.utf8).write(to: pack.appendingPathComponent("copy/\(name)")) }
        return try CopyFiles.read(besidePolicy: pack.appendingPathComponent("policy.lua"), shownPack: "pack")
    }

    static func error(_ files: [String: String]) -> InputError? {
        do {
            _ = try read(files)
            return nil
        } catch {
            return error
        }
    }

    @Test func flatFilesBecomeTranslationsByKey() throws {
        let copy = try Self.read([
            "en.yaml": "# the English copy\nwelcome.title: Stay in the loop\nwelcome.accept: \"Continue\"\n",
            "de.yaml": "welcome.title: Bleib auf dem Laufenden\n",
        ])
        #expect(copy.translations(of: "welcome.title") == ["en": "Stay in the loop", "de": "Bleib auf dem Laufenden"])
        #expect(copy.keys == ["welcome.accept", "welcome.title"])
        #expect(
            copy.missing(in: ["de", "en", "fr"]).map { "\($0.locale) \($0.key)" } == [
                "de welcome.accept", "fr welcome.accept", "fr welcome.title",
            ])
    }

    @Test func aPackWithoutACopyFolderHasNoCopy() throws {
        #expect(try Self.read([:]).isEmpty)
    }

    @Test func mistakesNameTheFileTheLineAndTheKey() throws {
        let nested = try #require(Self.error(["en.yaml": "welcome:\n  title: Hi\n"]))
        #expect(nested.location?.file == "pack/copy/en.yaml")
        #expect(nested.location?.line == 2)
        #expect(nested.field == "welcome")
        #expect(nested.message.contains("expected the text of \"welcome\""))
        #expect(nested.hint?.contains("flat") == true)

        let empty = try #require(Self.error(["de.yaml": "a: Hallo\nb:\n"]))
        #expect(empty.location?.line == 2)
        #expect(empty.field == "b")

        let badKey = try #require(Self.error(["en.yaml": "\"bad key\": x\n"]))
        #expect(badKey.message.contains("is not a key"))

        let long = try #require(Self.error(["en.yaml": "k: \(String(repeating: "x", count: 2_001))\n"]))
        #expect(long.message.contains("a text is at most 2000"))

        let duplicate = try #require(Self.error(["en.yaml": "k: a\nk: b\n"]))
        #expect(duplicate.location?.line == 2, "\(duplicate)")

        let badName = try #require(Self.error(["english.yml": "k: a\n"]))
        #expect(badName.location?.file == "pack/copy/english.yml")
        #expect(badName.hint?.contains("<locale>.yaml") == true)
    }

    @Test func theCopyIsBoundedApartFromTheSource() throws {
        // 40 KiB in each of two files: past the 64 KiB of keys and texts in all.
        let text = (0..<40).map { "k\($0): \(String(repeating: "x", count: 1_000))" }.joined(separator: "\n")
        let big = try #require(Self.error(["en.yaml": text, "de.yaml": text]))
        #expect(big.message.contains("a pack's copy is at most 65536"), "\(big)")
        let locales = Dictionary(uniqueKeysWithValues: (0..<33).map { ("en-a\($0)", ["k": "v"]) })
        #expect(throws: PolicyCopyError.self) { try PolicyCopy(locales: locales) }
    }

    /// The bundle form reads back to the same copy, and is held to the same bounds.
    @Test func theBundleFormRoundTrips() throws {
        let copy = try Self.read(["en.yaml": "a: A\n", "pt-BR.yaml": "a: Á\n"])
        #expect(try PolicyCopy.decode(copy.encoded()) == copy)
        #expect(String(decoding: copy.encoded(), as: UTF8.self) == #"{"en":{"a":"A"},"pt-BR":{"a":"Á"}}"#)
        #expect(throws: PolicyCopyError.self) { try PolicyCopy.decode(Data(#"{"en":{"bad key":"x"}}"#.utf8)) }
        #expect(throws: PolicyCopyError.self) { try PolicyCopy.decode(Data(#"{"en":["x"]}"#.utf8)) }
    }
}

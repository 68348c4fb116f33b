import Foundation
import PermitTestSupport
import Testing

/// Each library an app links ships a privacy manifest (`PrivacyInfo.xcprivacy`, a resource of
/// its target) that declares every category of Apple's required-reason API its sources call,
/// and no other: App Store Connect refuses an app whose code uses one undeclared
/// (docs/platform.md, "Privacy manifest").
@Suite struct PrivacyManifestTests {
    /// The app-linked targets and the source folders each one brings into an app (PermitLua
    /// compiles the C shim and, on Apple platforms, Lua itself).
    static let targets: [(name: String, folders: [String])] = [
        ("PermitCore", ["PermitCore"]),
        ("PermitLua", ["PermitLua", "CLuaShim", "CPermitLua"]),
        ("PermitDelivery", ["PermitDelivery"]),
        ("PermitFetch", ["PermitFetch"]),
    ]

    /// Apple's categories of required-reason API and the calls in each ("Describing use of
    /// required reason API"); a category is used when a source line (not a comment) names one.
    /// A C function is written with its parenthesis (`stat(`): only a call counts, so Lua's
    /// `int stat = lua_status(co)` (a variable) is not a file-timestamp read.
    static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            "creationDate", "modificationDate", "fileModificationDate", "contentModificationDateKey", "creationDateKey",
            "getattrlist(", "getattrlistbulk(", "fgetattrlist(", "getattrlistat(", "stat(", "fstat(", "fstatat(", "lstat(",
        ],
        "NSPrivacyAccessedAPICategorySystemBootTime": ["systemUptime", "mach_absolute_time("],
        "NSPrivacyAccessedAPICategoryDiskSpace": [
            "volumeAvailableCapacityKey", "volumeAvailableCapacityForImportantUsageKey",
            "volumeAvailableCapacityForOpportunisticUsageKey", "volumeTotalCapacityKey", "systemFreeSize", "systemSize",
            "statfs(", "statvfs(", "fstatfs(", "fstatvfs(", "getattrlist(", "fgetattrlist(", "getattrlistat(",
        ],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults", "NSUserDefaults"],
    ]

    /// The categories a folder's sources use, each with a line that uses it.
    static func used(in folder: URL) -> [String: String] {
        var found: [String: String] = [:]
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where ["swift", "c", "h"].contains(file.pathExtension) {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where !isComment(line) {
                for (category, names) in categories where found[category] == nil {
                    if names.contains(where: { Self.holds(line, name: $0) }) {
                        found[category] = "\(file.lastPathComponent): \(line.trimmingCharacters(in: .whitespaces))"
                    }
                }
            }
        }
        return found
    }

    static func isComment(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.hasPrefix("//") || trimmed.hasPrefix("*") || trimmed.hasPrefix("/*")
    }

    /// Whether `line` holds `name` as a whole identifier; a name ending in `(` only as a call
    /// (spaces may come before the parenthesis).
    static func holds(_ line: Substring, name: String) -> Bool {
        let text = String(line)
        let call = name.hasSuffix("(")
        let identifier = call ? String(name.dropLast()) : name
        return SourceScan.starts(of: identifier, in: text).contains { start in
            let end = text.index(start, offsetBy: identifier.count)
            let before = start == text.startIndex ? nil : text[text.index(before: start)]
            let rest = text[end...]
            if before.map(isIdentifier) ?? false { return false }
            if call { return rest.drop { $0 == " " || $0 == "\t" }.first == "(" }
            return !(rest.first.map(isIdentifier) ?? false)
        }
    }

    static func isIdentifier(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }

    /// The categories a manifest declares, each with its reasons.
    static func declared(in manifest: URL) throws -> [String: [String]] {
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: manifest), format: nil)
        let top = try #require(plist as? [String: Any])
        #expect(top["NSPrivacyTracking"] as? Bool == false)
        #expect((top["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
        let accessed = try #require(top["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var declared: [String: [String]] = [:]
        for entry in accessed {
            let category = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            declared[category] = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
        }
        return declared
    }

    @Test(arguments: targets.map(\.name))
    func theManifestDeclaresWhatTheSourcesUse(target: String) throws {
        let folders = try #require(Self.targets.first { $0.name == target }).folders
        let sources = Repository.root.appendingPathComponent("Sources")
        var used: [String: String] = [:]
        for folder in folders { used.merge(Self.used(in: sources.appendingPathComponent(folder))) { first, _ in first } }
        let declared = try Self.declared(in: sources.appendingPathComponent("\(target)/PrivacyInfo.xcprivacy"))
        for (category, line) in used where declared[category] == nil {
            Issue.record("\(target) uses \(category) (\(line)) but its PrivacyInfo.xcprivacy does not declare it")
        }
        for category in declared.keys where used[category] == nil {
            Issue.record("\(target)'s PrivacyInfo.xcprivacy declares \(category), which its sources no longer use")
        }
        for (category, reasons) in declared { #expect(!reasons.isEmpty, "\(category) needs a reason") }
    }

    @Test func eachManifestIsAResourceOfItsTarget() throws {
        let package = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for (target, _) in Self.targets {
            let targets = try #require(package.range(of: "\n    targets: ["), "Package.swift's target list")
            let start = try #require(package.range(of: "name: \"\(target)\"", range: targets.upperBound..<package.endIndex))
            let rest = package[start.upperBound...]
            let end = ["\n        .target(", "\n        .testTarget(", "\n        .executableTarget("].compactMap {
                rest.range(of: $0)?.lowerBound
            }.min()
            let declaration = rest[..<(end ?? rest.endIndex)]
            #expect(declaration.contains(".process(\"PrivacyInfo.xcprivacy\")"), "\(target) ships no privacy manifest")
        }
    }

    /// The scan itself: a use in code counts, a mention in a comment or inside a longer name does not.
    @Test func theScanFindsCallsNotMentions() {
        #expect(Self.holds("let d = UserDefaults.standard", name: "UserDefaults"))
        #expect(Self.holds("if (stat(path, &info) == 0)", name: "stat("))
        #expect(Self.holds("if (stat (path, &info) == 0)", name: "stat("))
        #expect(!Self.holds("let status = statistics()", name: "stat("))
        #expect(!Self.holds("  int stat = lua_status(co);", name: "stat("))
        #expect(!Self.holds("UserDefaultsLedgerStore()", name: "UserDefaults"))
        #expect(Self.isComment("    /// Keeps the ledger in `UserDefaults`"))
    }
}

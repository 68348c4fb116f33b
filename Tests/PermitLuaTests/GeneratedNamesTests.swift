import Foundation
import Testing

@testable import PermitLua

/// The names C and the warm path use are generated from `ContextSchema`, their one source:
/// `FastPath.Key` (`Sources/PermitLua/FastPathKey.generated.swift`) and the lazy builder's key
/// names (`Sources/CLuaShim/lazy_names.generated.h`). Both files are checked in so the build
/// needs no generator; this suite is the generator. A schema change fails it, naming the file;
/// `make generate` (this suite with `PERMIT_GENERATE=1`) writes the files again, and the code
/// that used a renamed or removed name then stops compiling where it does.
@Suite struct GeneratedNamesTests {
    static let header = "Sources/CLuaShim/lazy_names.generated.h"
    static let keys = "Sources/PermitLua/FastPathKey.generated.swift"

    @Test(arguments: [header, keys])
    func theCheckedInFileIsWhatTheSchemaMakes(path: String) throws {
        let expected = path == Self.header ? Self.lazyNamesHeader() : Self.fastPathKeys()
        let url = ContextSchemaTests.repository.appendingPathComponent(path)
        let current = try? String(contentsOf: url, encoding: .utf8)
        if current == expected { return }
        if ProcessInfo.processInfo.environment["PERMIT_GENERATE"] == "1" {
            try expected.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let added = Set(Self.lines(expected)).subtracting(Self.lines(current ?? ""))
        let removed = Set(Self.lines(current ?? "")).subtracting(Self.lines(expected))
        Issue.record(
            """
            \(path) is not what ContextSchema makes; run `make generate` (lines to add: \(added.sorted()), \
            to remove: \(removed.sorted()))
            """)
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    // MARK: The lazy builder's names

    /// The names `LazyContext.c` sets: the lazy ctx fields and the fields of the tables built
    /// under them. `ctx.settings`' names come first, in byte order as `PERMIT_S_*` are (the
    /// builder sets setting `i` under `N_ALERT + i`); the others follow in byte order.
    static var lazyNames: [String] {
        let settings = ContextSchema.settings.fields.map(\.name).sorted()
        let records = [
            ContextSchema.history, ContextSchema.softPromptHistory, ContextSchema.systemPromptHistory,
            ContextSchema.settingsPromptHistory, ContextSchema.featureHistory, ContextSchema.eventHistory,
            ContextSchema.user, ContextSchema.localTime,
        ]
        let others = Set(ContextSchema.lazyContextFields + records.flatMap { $0.fields.map(\.name) })
            .subtracting(settings)
        return settings + others.sorted()
    }

    static func lazyNamesHeader() -> String {
        let names = lazyNames
        let constants = names.enumerated().map { "    N_\($0.element.uppercased()) = \($0.offset + 1)," }
        let texts = names.map { "    \"\($0)\"," }
        return """
            /* Generated from ContextSchema (Sources/PermitLua/ContextSchema.swift) by `make generate`; do not
               edit. GeneratedNamesTests fails when this file differs from what the schema makes.

               The key names the lazy builder (LazyContext.c) sets, made once per VM (a sequence in the
               registry): a key is then one lua_rawgeti. ctx.settings' names come first, in PERMIT_S_* order. */
            #ifndef PERMIT_LAZY_NAMES_GENERATED_H
            #define PERMIT_LAZY_NAMES_GENERATED_H

            enum {
            \(constants.joined(separator: "\n"))
                N_NAME_COUNT
            };

            static const char *const lazy_names[N_NAME_COUNT] = {
                NULL,
            \(texts.joined(separator: "\n"))
            };

            #endif

            """
    }

    // MARK: The warm path's interned keys

    /// ctx's eager keys, the event's fields, and the values those fields take.
    static var internedNames: [String] {
        let eager = ContextSchema.context.fields.map(\.name).filter { !ContextSchema.lazyContextFields.contains($0) }
        let all =
            eager.sorted() + ContextSchema.event.fields.map(\.name) + ContextSchema.eventNames + ContextSchema.answers
            + ContextSchema.statuses + ContextSchema.settingValues
        var seen = Set<String>()
        return all.filter { seen.insert($0).inserted }
    }

    /// `previous_status` as a Swift case: `previousStatus`.
    static func camelCase(_ name: String) -> String {
        let words = name.split(separator: "_")
        return String(words[0]) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func fastPathKeys() -> String {
        let names = internedNames
        let cases = names.enumerated().map { "        case \(camelCase($0.element))\($0.offset == 0 ? " = 1" : "")" }
        let texts = names.map { "            case .\(camelCase($0)): \"\($0)\"" }
        return """
            // Generated from ContextSchema (Sources/PermitLua/ContextSchema.swift) by `make generate`; do not
            // edit. GeneratedNamesTests fails when this file differs from what the schema makes.

            extension FastPath {
                /// Every key and enum value `ctx` holds, interned once per VM (a sequence in the registry)
                /// so that a key costs one `lua_rawgeti` instead of hashing its text on every call: ctx's
                /// eager keys, the event's fields, and the values those fields take (the lazy fields'
                /// names are `LazyContext.c`'s, generated in `lazy_names.generated.h`).
                enum Key: Int32, CaseIterable {
            \(cases.joined(separator: "\n"))

                    /// The name as Lua spells it.
                    var text: String {
                        switch self {
            \(texts.joined(separator: "\n"))
                        }
                    }
                }
            }

            """
    }
}

import PermitLua

/// The names C and the warm path use, generated from `ContextSchema`, their one source:
/// `FastPath.Key` (`Sources/PermitLua/Context/FastPathKey.generated.swift`), the lazy builder's key
/// names (`Sources/CLuaShim/lazy_names.generated.h`), and the in-place decision reader's codes
/// and tables (`Sources/CLuaShim/include/permit_decision.generated.h`, public: the codes Swift
/// reads a decision's slots by; `Sources/CLuaShim/decision_fields.generated.h`, private to
/// `FastPath.c`: the names, the action names and the fields each action allows). The files are
/// checked in so the build needs no generator: `make generate` (`permit-generate`) writes them
/// again, and the code that used a renamed or removed name then stops compiling where it does;
/// the repository's tests (GeneratedFilesTests) fail while a checked-in file differs.
public enum GeneratedNames {
    static let header = "Sources/CLuaShim/lazy_names.generated.h"
    static let keys = "Sources/PermitLua/Context/FastPathKey.generated.swift"
    static let decisionCodes = "Sources/CLuaShim/include/permit_decision.generated.h"
    static let decisionTables = "Sources/CLuaShim/decision_fields.generated.h"

    /// The generated files, by path from the repository's root.
    public static let paths = [header, keys, decisionCodes, decisionTables]

    /// What the generated file at `path` holds, made from the schema; `nil` for a path that is
    /// not one of `paths`.
    public static func contents(of path: String) -> String? {
        switch path {
        case header: lazyNamesHeader()
        case keys: fastPathKeys()
        case decisionCodes: decisionCodesHeader()
        case decisionTables: decisionTablesHeader()
        default: nil
        }
    }

    // MARK: The lazy builder's names

    /// The names `LazyContext.c` sets: the lazy ctx fields and the fields of the tables built
    /// under them. `ctx.settings`' names come first, in byte order as `PERMIT_S_*` are (the
    /// builder sets setting `i` under `N_ALERT + i`); the others follow in byte order.
    static var lazyNames: [String] {
        let settings = ContextSchema.settings.fields.map(\.name).sorted()
        let records = [
            ContextSchema.history, ContextSchema.softPromptHistory, ContextSchema.systemPromptHistory,
            ContextSchema.settingsPromptHistory, ContextSchema.informHistory, ContextSchema.featureHistory,
            ContextSchema.eventHistory,
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
            /* Generated from ContextSchema (Sources/PermitLua/Context/ContextSchema.swift) by `make generate`
               (Tools/permit-generate); do not edit. The repository's tests fail while it differs.

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
            // Generated from ContextSchema (Sources/PermitLua/Context/ContextSchema.swift) by `make generate`
            // (Tools/permit-generate); do not edit. The repository's tests fail while it differs.

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

    // MARK: The in-place decision reader

    /// The decision's fields in `PERMIT_D_*` order: the fields every action takes, then each
    /// action's further fields in action order, each once.
    static var decisionFields: [String] {
        var seen = Set<String>()
        let actions = ContextSchema.actions.flatMap { ContextSchema.decisionFieldsByAction[$0] ?? [] }
        return (ContextSchema.commonDecisionFields + actions).filter { seen.insert($0).inserted }
    }

    static func decisionCodesHeader() -> String {
        let fields = decisionFields.map { "    PERMIT_D_\($0.uppercased())," }
        let actions = ContextSchema.actions.map { "    PERMIT_A_\($0.uppercased())," }
        return """
            /* Generated from ContextSchema (Sources/PermitLua/Context/ContextSchema.swift) by `make generate`
               (Tools/permit-generate); do not edit. The repository's tests fail while it differs.

               The codes of a decision's fields and actions, shared by the in-place reader (FastPath.c, whose
               tables are in decision_fields.generated.h) and the Swift side that reads the values it pushes
               (FastPath.swift); included by permit_context.h. */
            #ifndef PERMIT_DECISION_GENERATED_H
            #define PERMIT_DECISION_GENERATED_H

            /* The fields of a decision table, in the order permit_decision_fields pushes them: the fields
               every action takes, then each action's further fields in action order. */
            enum {
            \(fields.joined(separator: "\n"))
                PERMIT_D_COUNT
            };

            /* The actions, as permit_decision_fields answers them (bits 24 and up). */
            enum {
            \(actions.joined(separator: "\n"))
                PERMIT_A_COUNT
            };

            #endif

            """
    }

    static func decisionTablesHeader() -> String {
        let fields = decisionFields
        let names = fields.map { "    \"\($0)\"," }
        let actions = ContextSchema.actions.map { "    \"\($0)\"," }
        let masks = ContextSchema.actions.map { action in
            let allowed = ContextSchema.commonDecisionFields + (ContextSchema.decisionFieldsByAction[action] ?? [])
            let mask = fields.indices.filter { allowed.contains(fields[$0]) }.reduce(0) { $0 | 1 << $1 }
            return "    0x\(String(mask, radix: 16))u, /* \(action): \(allowed.joined(separator: ", ")) */"
        }
        return """
            /* Generated from ContextSchema (Sources/PermitLua/Context/ContextSchema.swift) by `make generate`
               (Tools/permit-generate); do not edit. The repository's tests fail while it differs.

               The in-place decision reader's tables (FastPath.c), DecisionReader's names: the fields a
               decision may hold (by PERMIT_D_* code), the actions (by PERMIT_A_* code), and the fields each
               action allows (bit n: PERMIT_D_* code n). */
            #ifndef PERMIT_DECISION_FIELDS_GENERATED_H
            #define PERMIT_DECISION_FIELDS_GENERATED_H

            #include "permit_context.h"

            static const char *const decision_names[PERMIT_D_COUNT] = {
            \(names.joined(separator: "\n"))
            };

            static const char *const action_names[PERMIT_A_COUNT] = {
            \(actions.joined(separator: "\n"))
            };

            static const unsigned allowed_fields[PERMIT_A_COUNT] = {
            \(masks.joined(separator: "\n"))
            };

            #endif

            """
    }
}

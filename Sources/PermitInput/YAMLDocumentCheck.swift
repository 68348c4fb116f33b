import Yams

/// Checks a composed YAML document before anything reads it: aliases that expand too far, and
/// tags.
///
/// Yams resolves every alias to the node its anchor names. The tree shares that node, so
/// composing costs little, but whatever walks the tree afterwards (reading params, comparing
/// values) walks every copy: nine levels of `[*a, *a, ...]` make hundreds of millions of
/// values from a few hundred bytes. This walk counts the values reached through aliases and
/// stops at `maxAliasedValues`, so it costs at most that many steps, and no later reader can
/// be made to do more. Anchors and aliases stay usable for what they are for: a shared
/// preamble referred to a few times (`<<: *defaults`).
///
/// Tags (`!!binary`, `!!python/object`, `!custom`) mean nothing to Permit; a tagged value would
/// otherwise be read as plain text and the tag silently dropped.
enum YAMLDocumentCheck {
    /// How many values aliases may add to a document.
    static let maxAliasedValues = 100_000

    static func check(_ root: Node, file: String) throws(InputError) {
        var walker = Walker(file: file)
        try walker.visit(root, isKey: false)
    }

    /// The tags a key gets from Yams' own resolution (it compares keys to find duplicates,
    /// which resolves their tags): these are not written in the file.
    private static let resolvedKeyTags: Set<String> = [
        "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp",
        "tag:yaml.org,2002:merge", "tag:yaml.org,2002:value",
    ]

    private struct Walker {
        let file: String
        /// The furthest start (line, column) of a value read so far in document order. A node
        /// that starts before it was read already: an alias brought it here (Yams keeps
        /// the anchored node's place, and not the anchor's name, on every copy).
        var frontier = (line: 0, column: 0)
        /// Values reached through aliases so far.
        var aliased = 0
        /// Inside an alias: the node that holds it, the path there, and the aliased value's line.
        var alias: (holder: Mark?, path: [String], line: Int)?
        var path: [String] = []
        var holder: Mark?

        mutating func visit(_ node: Node, isKey: Bool) throws(InputError) {
            var enteredAlias = false
            if alias == nil, let mark = node.mark {
                // Strictly before: a mapping and its first key start at the same place, and
                // that key was not brought by an alias.
                if (mark.line, mark.column) < frontier {
                    alias = (holder, path, mark.line)
                    enteredAlias = true
                } else {
                    frontier = (mark.line, mark.column)
                }
            }
            defer { if enteredAlias { alias = nil } }
            if alias != nil {
                aliased += 1
                if aliased > YAMLDocumentCheck.maxAliasedValues { throw excessiveAliasing() }
            } else {
                try checkTag(node, isKey: isKey)
            }
            let outer = holder
            holder = node.mark ?? holder
            defer { holder = outer }
            switch node {
            case .scalar, .alias:
                break
            case .sequence(let sequence):
                for (index, item) in sequence.enumerated() {
                    path.append("[\(index + 1)]")
                    defer { path.removeLast() }
                    try visit(item, isKey: false)
                }
            case .mapping(let mapping):
                for (key, value) in mapping {
                    try visit(key, isKey: true)
                    path.append(key.scalar?.string ?? "?")
                    defer { path.removeLast() }
                    try visit(value, isKey: false)
                }
            }
        }

        func checkTag(_ node: Node, isKey: Bool) throws(InputError) {
            let tag: String
            switch node {
            case .scalar(let scalar):
                tag = scalar.tag.rawValue
                // Yams gives every quoted scalar the `str` tag (the text it is, written or not).
                if scalar.style != .plain, tag == "tag:yaml.org,2002:str" { return }
            case .sequence(let sequence): tag = sequence.tag.rawValue
            case .mapping(let mapping): tag = mapping.tag.rawValue
            case .alias: return
            }
            if tag.isEmpty || (isKey && YAMLDocumentCheck.resolvedKeyTags.contains(tag)) { return }
            let shown = tag.hasPrefix("tag:yaml.org,2002:") ? "!!" + tag.dropFirst("tag:yaml.org,2002:".count) : tag
            throw InputError(
                "YAML tags are not accepted (found \(shown))",
                at: SourceLocation(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1),
                field: fieldPath(path),
                hint: "write the value without its tag; quote it to make it text")
        }

        func excessiveAliasing() -> InputError {
            let site = alias!
            return InputError(
                "excessive aliasing: aliases here expand to more than \(YAMLDocumentCheck.maxAliasedValues) values "
                    + "(by repeating the value at line \(site.line))",
                at: SourceLocation(file: file, line: site.holder?.line ?? 1, column: site.holder?.column ?? 1),
                field: fieldPath(site.path),
                hint: "write shared values once and refer to them a few times, not aliases of aliases")
        }

        func fieldPath(_ components: [String]) -> String? {
            guard !components.isEmpty else { return nil }
            var text = ""
            for component in components {
                if component.hasPrefix("[") || text.isEmpty { text += component } else { text += "." + component }
            }
            return text
        }
    }
}

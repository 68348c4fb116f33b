import CLibYAML

/// Checks a YAML document's parser events before Yams composes it: aliases used inside keys,
/// and keys that appear twice in one table.
///
/// Why before composing: Yams checks every mapping for duplicate keys as it builds it, by
/// hashing and comparing the key nodes, and a key node reached through an alias is hashed with
/// its whole subtree, every alias in it expanded. `? *bomb : 1` (or `*bomb : 1`, or a key list
/// holding aliases) with nine levels of nine aliases behind it makes Yams walk hundreds of
/// millions of values inside `compose`, before `YAMLDocumentCheck` sees the tree. Events are
/// the document as written: an alias is one event however much it stands for. So this pass
/// knows how many values each anchor stands for and refuses a document whose keys would make
/// Yams expand more than `YAMLDocumentCheck.maxAliasedValues` values. Aliases in values (a
/// shared preamble, `<<: *base`) cost Yams nothing and are left to `YAMLDocumentCheck`.
///
/// Duplicate keys are found here too because events carry each key's own position: Yams
/// reports a duplicate at the first key only, and for a flow table (`{ a: 1, a: 2 }`) nothing
/// in its error says where the second one is.
///
/// It reads events through libyaml's C API (the `CLibYAML` system library: Yams keeps its own
/// copy of libyaml internal and offers no parser events); a syntax error stops it quietly, and
/// `compose` then reports it.
enum YAMLEventCheck {
    static func check(_ text: String, file: String) throws(InputError) {
        var scan = Scan(file: file)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return }  // libyaml wants an input address; compose reports an empty file
        let failure: InputError? = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return nil }
                do throws(InputError) {
                    try scan.take(event)
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// A table or list still open, as the events have described it so far.
    private struct Frame {
        let isMapping: Bool
        let anchor: String?
        /// Whether this node is (part of) a mapping key.
        let inKey: Bool
        /// Children seen so far (a mapping's keys and values alternate).
        var children = 0
        /// Values this node stands for, aliases expanded (saturating).
        var size = 1
        /// A mapping's scalar keys so far (`p:` plain, `q:` quoted, then the text) and their lines.
        var keys: [String: Int] = [:]
        /// A mapping's current key as a field name, for the path in errors.
        var currentKey = "?"

        /// The next child is a mapping key.
        var expectsKey: Bool { isMapping && children % 2 == 0 }
    }

    private struct Scan {
        let file: String
        var frames: [Frame] = []
        /// Values each anchor stands for (the latest definition of a name wins, as in YAML).
        var anchorSizes: [String: Int] = [:]
        /// Values the aliases inside keys stand for, so far.
        var expandedInKeys = 0

        init(file: String) { self.file = file }

        mutating func take(_ event: yaml_event_t) throws(InputError) {
            let mark = (line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            switch event.type {
            case YAML_SCALAR_EVENT:
                try checkDuplicateKey(event, at: mark)
                finish(size: 1, anchor: Self.text(event.data.scalar.anchor))
            case YAML_ALIAS_EVENT:
                let size = Self.text(event.data.alias.anchor).flatMap { anchorSizes[$0] } ?? 1
                if frames.last?.expectsKey == true || frames.last?.inKey == true {
                    expandedInKeys = Self.adding(expandedInKeys, size)
                    if expandedInKeys > YAMLDocumentCheck.maxAliasedValues { throw excessiveAliasing(at: mark) }
                }
                finish(size: size, anchor: nil)
            case YAML_SEQUENCE_START_EVENT:
                open(isMapping: false, anchor: Self.text(event.data.sequence_start.anchor))
            case YAML_MAPPING_START_EVENT:
                open(isMapping: true, anchor: Self.text(event.data.mapping_start.anchor))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = frames.popLast() else { return }
                finish(size: frame.size, anchor: frame.anchor)
            default:
                break
            }
        }

        private mutating func open(isMapping: Bool, anchor: String?) {
            let inKey = frames.last.map { $0.inKey || $0.expectsKey } ?? false
            frames.append(Frame(isMapping: isMapping, anchor: anchor, inKey: inKey))
        }

        /// A node ended: its size counts in its parent, and its anchor now stands for it.
        private mutating func finish(size: Int, anchor: String?) {
            if let anchor { anchorSizes[anchor] = size }
            guard !frames.isEmpty else { return }
            frames[frames.count - 1].children += 1
            frames[frames.count - 1].size = Self.adding(frames[frames.count - 1].size, size)
        }

        /// A scalar key (untagged) the table it is in has already: refused at its own line.
        /// Plain and quoted keys are told apart (Yams resolves a plain `1` to a number, `"1"`
        /// to text); a duplicate this misses (`a` and `"a"`) is still refused by Yams.
        private mutating func checkDuplicateKey(_ event: yaml_event_t, at mark: (line: Int, column: Int)) throws(InputError) {
            let scalar = event.data.scalar
            guard let frame = frames.last, frame.expectsKey, scalar.tag == nil else { return }
            let text = scalar.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self) } ?? ""
            let id = (scalar.style == YAML_PLAIN_SCALAR_STYLE ? "p:" : "q:") + text
            frames[frames.count - 1].currentKey = text
            if let first = frame.keys[id] {
                frames[frames.count - 1].currentKey = "?"
                throw InputError(
                    "\"\(text)\" appears twice in one table (first at line \(first))",
                    at: SourceLocation(file: file, line: mark.line, column: mark.column), field: fieldPath(),
                    hint: "keep one of them")
            }
            frames[frames.count - 1].keys[id] = mark.line
        }

        /// The field the innermost open table or list is, as errors name fields (`params.a[2]`).
        private func fieldPath() -> String? {
            var text = ""
            for (parent, _) in zip(frames, frames.dropFirst()) {
                if parent.isMapping {
                    text += text.isEmpty ? parent.currentKey : "." + parent.currentKey
                } else {
                    text += "[\(parent.children + 1)]"
                }
            }
            return text.isEmpty ? nil : text
        }

        private func excessiveAliasing(at mark: (line: Int, column: Int)) -> InputError {
            InputError(
                "excessive aliasing: aliases used in keys here expand to more than \(YAMLDocumentCheck.maxAliasedValues) values",
                at: SourceLocation(file: file, line: mark.line, column: mark.column), field: fieldPath(),
                hint: "use plain names as keys; aliases belong in values (`<<: *base` for a shared preamble)")
        }

        private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { String(cString: UnsafePointer($0)) }
        }

        /// `a + b`, stopping at a bound far above any limit instead of overflowing.
        private static func adding(_ a: Int, _ b: Int) -> Int { min(a, 1 << 40) + min(b, 1 << 40) }
    }
}

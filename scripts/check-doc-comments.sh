#!/usr/bin/env bash
# Lists public API without a doc comment: every `public`/`open` declaration in Sources/ (types,
# functions, properties, initializers, subscripts, typealiases), every case of a public enum and
# every requirement of a public protocol, whose nearest preceding line (attributes skipped) is
# not a `///` comment.
#
# Why: the libraries are used from apps that only see the generated documentation; a symbol
# without a comment is one whose purpose a host author has to guess.
#
# Usage: scripts/check-doc-comments.sh [--report-only] [DIR...]
#   Prints FILE:LINE: declaration for each one missing and a count; exits 1 when any is missing
#   (0 with --report-only). Generated and test code are not checked.
set -euo pipefail
cd "$(dirname "$0")/.."

report_only=0
if [[ "${1:-}" == "--report-only" ]]; then report_only=1; shift; fi
dirs=("$@")
[[ ${#dirs[@]} -gt 0 ]] || dirs=(Sources)

missing=$(find "${dirs[@]}" -name '*.swift' -print0 | sort -z | xargs -0 awk '
    FNR == 1 { documented = 0; depth = 0; enum_depth = -1; protocol_depth = -1 }
    {
        line = $0
        # A public enum: its cases are public too (an indirect or nested one included).
        is_decl = match(line, /^[ \t]*(@[A-Za-z_]+(\([^)]*\))?[ \t]+)*(public|open)[ \t]+((static|final|override|mutating|convenience|required|indirect|nonisolated(\([a-z]+\))?|lazy|dynamic)[ \t]+)*(func|var|let|init[?!]?|subscript|struct|class|enum|protocol|actor|typealias)[ \t(<]/)
        is_case = (enum_depth >= 0 && depth == enum_depth + 1 && match(line, /^[ \t]*(indirect[ \t]+)?case[ \t]/))
        is_requirement = (protocol_depth >= 0 && depth == protocol_depth + 1 && match(line, /^[ \t]*(@[A-Za-z_]+(\([^)]*\))?[ \t]+)*((static|mutating|nonisolated(\([a-z]+\))?)[ \t]+)*(func|var|init|subscript|associatedtype)[ \t(<?]/))
        if ((is_decl || is_case || is_requirement) && !documented) {
            text = line; sub(/^[ \t]+/, "", text)
            printf "%s:%d: %s\n", FILENAME, FNR, text
        }
        if (is_decl && match(line, /(public|open)[ \t]+(indirect[ \t]+)?enum[ \t]/) && enum_depth < 0) enum_depth = depth
        if (is_decl && match(line, /public[ \t]+protocol[ \t]/) && protocol_depth < 0) protocol_depth = depth
        # Track braces (strings and comments rarely hold them in these sources).
        code = line; sub(/\/\/.*$/, "", code)
        opens = gsub(/\{/, "{", code); closes = gsub(/\}/, "}", code)
        depth += opens - closes
        if (enum_depth >= 0 && depth <= enum_depth && closes > 0) enum_depth = -1
        if (protocol_depth >= 0 && depth <= protocol_depth && closes > 0) protocol_depth = -1
        # What the next declaration sees: a doc comment line, or an attribute after one.
        if (match(line, /^[ \t]*\/\/\//) || match(line, /\*\/[ \t]*$/)) documented = 1
        else if (match(line, /^[ \t]*@[A-Za-z_]+(\([^)]*\))?[ \t]*$/)) documented = documented
        else documented = 0
    }
' || true)

count=$(printf '%s' "$missing" | grep -c . || true)
if [[ $count -gt 0 ]]; then
    printf '%s\n' "$missing"
    echo "$count public declarations without a doc comment"
    [[ $report_only -eq 1 ]] || exit 1
else
    echo "every public declaration has a doc comment"
fi

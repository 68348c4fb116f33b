#!/usr/bin/env bash
# Holds the libraries an app links (PermitCore, PermitLua, PermitDelivery, PermitFetch, and
# PermitSimulator in its tests) to the floor Package.swift states (iOS 15, macOS 13), where
# Linux, which has no availability, cannot: on Linux every API compiles, and the mistake shows
# only in Xcode, or on an old device.
#
#   scripts/check-availability.sh              the five targets' sources; fails on any finding
#   scripts/check-availability.sh FILE|DIR...  those files instead
#   scripts/check-availability.sh --self-test  plants one use of each family in a scratch folder
#                                              and fails unless every one is reported
#
# Two families, each found by what the code says (comments and strings left out), and a third
# that Xcode would turn into an error:
#  1. A typed-throws function type held as a value: a stored property, variable or constant of
#     that type, an optional or a collection of it, a generic argument, a type alias, a cast.
#     Compared with nil, wrapped in Optional or put in a generic, such a value needs the type's
#     runtime metadata, which only the Swift 6.0 runtime has (iOS 18, macOS 15): the compiler
#     refuses it below that floor (swiftlang/swift pull request 74962). Typed throws on
#     functions, closures and parameters (passed, not kept) needs no metadata and stays.
#     Keep such a closure as a non-throwing one returning a `Result`.
#  2. Standard library and concurrency API newer than iOS 15 (Regex, Duration and the clocks,
#     Mutex and Atomic, 128-bit integers, spans, InlineArray, ...) outside an `@available` or
#     `#available` naming a newer iOS in the 15 lines before the use.
#  3. An `#available` at or below the floor (iOS 15.0): always true, so Xcode warns ("unnecessary
#     check"), and the build treats warnings as errors.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(Sources/PermitCore Sources/PermitSimulator Sources/PermitLua Sources/PermitDelivery Sources/PermitFetch)

# Family 2: name (an extended regular expression matched as a word) and the iOS that introduced
# it, from Apple's documentation and the availability the standard library's interface states.
NEWER_API='Regex:16 RegexComponent:16 wholeMatch:16 firstMatch\(of:16 Duration:16 ContinuousClock:16
SuspendingClock:16 sleep\(for:16 Locale\.Language:16 URL\(filePath:16 appending\(path:16
withDiscardingTaskGroup:17 withThrowingDiscardingTaskGroup:17 Mutex:18 Atomic:18 Int128:18 UInt128:18
String\(validating:18 InlineArray:26 Span:26 RawSpan:26 MutableSpan:26 UTF8Span:26 Task\.immediate:26'

# Both families over every file in one pass; FILE:LINE: message per finding, status 1 if any.
check() {
    local files
    files=$(find "$@" -name '*.swift' -type f | sort)
    [ -n "$files" ] || return 0
    # shellcheck disable=SC2086
    awk -v api="$NEWER_API" '
    BEGIN {
        n = split(api, entries, /[[:space:]]+/)
        for (i = 1; i <= n; i++) if (entries[i] != "") {
            k = split(entries[i], pair, ":"); names[++count] = pair[1]; since[count] = pair[2]
        }
        fn = "\\([^()]*\\)[[:space:]]*(async[[:space:]]+)?throws\\([^)]*\\)[[:space:]]*->"
        attrs = "(@[A-Za-z]+(\\([^)]*\\))?[[:space:]]+)*"
        runtime = "needs the Swift 6.0 runtime (iOS 18, macOS 15): keep the closure as one returning a Result"
    }
    FNR == 1 { block = 0; delete recent }
    # The line without comments and without the contents of string literals.
    function strip(line,    out, c, two, rest, d, end) {
        out = ""
        while (length(line) > 0) {
            if (block) {
                end = index(line, "*/")
                if (end == 0) return out
                line = substr(line, end + 2); block = 0; continue
            }
            c = substr(line, 1, 1); two = substr(line, 1, 2)
            if (two == "//") return out
            if (two == "/*") { block = 1; line = substr(line, 3); continue }
            if (c == "\"") {
                rest = substr(line, 2)
                while (length(rest) > 0) {
                    d = substr(rest, 1, 1)
                    if (d == "\\") { rest = substr(rest, 3); continue }
                    rest = substr(rest, 2)
                    if (d == "\"") break
                }
                out = out "\"\""; line = rest; continue
            }
            out = out c; line = substr(line, 2)
        }
        return out
    }
    function report(message) { printf "%s:%d: %s\n", FILENAME, FNR, message; found = 1 }
    function guarded(    i) {
        for (i = FNR - 15; i <= FNR; i++)
            if ((i in recent) && recent[i] ~ /[@#]available\([^)]*iOS[[:space:]]+(1[6-9]|[2-9][0-9])/) return 1
        return 0
    }
    {
        line = strip($0)
        recent[FNR] = line; delete recent[FNR - 16]
        if (line ~ /throws\(/) {
            if (line ~ ("(^|[^A-Za-z0-9_])(let|var)[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*:[^=]*" fn))
                report("a typed-throws function type held in a stored property or variable " runtime)
            else if (line ~ ("typealias[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*=.*" fn))
                report("a typed-throws function type named by a type alias " runtime)
            else if (line ~ ("\\([[:space:]]*" attrs fn "[^()]*(\\([^()]*\\))?[^()]*\\)[[:space:]]*[?!]"))
                report("a typed-throws function type wrapped in an Optional " runtime)
            else if (line ~ ("[<\\[][[:space:]]*" attrs fn))
                report("a typed-throws function type used as a generic argument or collection element " runtime)
            else if (line ~ ("(^|[^A-Za-z0-9_])(as[?!]?|is)[[:space:]]+\\(?[[:space:]]*" attrs fn))
                report("a typed-throws function type used in a cast " runtime)
            else if (line ~ ("->[[:space:]]*\\([[:space:]]*" attrs fn))
                report("a typed-throws function type returned as a value " runtime)
        }
        if (line ~ /#available\([^)]*iOS[[:space:]]+([0-9]|1[0-4])(\.[0-9]+)*[,)[:space:]]/ || line ~ /#available\([^)]*iOS[[:space:]]+15(\.0)?[,)[:space:]]/)
            report("an #available at or below the iOS 15 floor is always true: Xcode warns, and warnings are errors; drop the check")
        for (i = 1; i <= count; i++) {
            if (line ~ ("(^|[^A-Za-z0-9_.])" names[i] "([^A-Za-z0-9_]|$)") && !guarded()) {
                name = names[i]; gsub(/\\/, "", name)
                report(name " is iOS " since[i] " API, above the iOS 15 floor: put it behind #available (or @available) with a fallback")
            }
        }
    }
    END { exit found ? 1 : 0 }' $files
}

self_test() {
    local dir status=0 case
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' RETURN
    cat >"$dir/Clean.swift" <<'SWIFT'
/// Typed throws where it needs no metadata: functions, closures, parameters.
struct Clean {
    private let body: @Sendable (Int) -> Result<Int, ParseError>
    init(_ parse: @escaping @Sendable (Int) throws(ParseError) -> Int) {
        body = { value in Result { () throws(ParseError) -> Int in try parse(value) } }
    }
    func run(_ value: Int) throws(ParseError) -> Int { try body(value).get() }
    func each(_ visit: (Int) throws(ParseError) -> Void) throws(ParseError) { try visit(1) }
    @available(macOS 13, iOS 16, *)
    func wait(_ clock: ContinuousClock) async throws { try await clock.sleep(for: .seconds(1)) }
    func link() -> Int { if #available(iOS 15.4, *) { return 1 }; return 0 }
    // A Mutex in a comment, and "Regex" in a string, are no use.
    let label = "Regex"
}
SWIFT
    check "$dir/Clean.swift" >"$dir/clean.log" 2>&1 || { echo "FAIL: the clean file was reported:" >&2; cat "$dir/clean.log" >&2; status=1; }
    local planted=(
        'struct A { let f: (Int) throws(ParseError) -> Int }'
        'struct B { var f: (@Sendable (Int) throws(ParseError) -> Int)? }'
        'func c(_ f: ((Int) throws(ParseError) -> Int)? = nil) {}'
        'typealias D = (Int) throws(ParseError) -> Int'
        'let e: [(Int) throws(ParseError) -> Int] = []'
        'func g() { _ = [Int]() as [(Int) throws(ParseError) -> Int] }'
        'func h(_ s: String) -> Bool { (try? Regex("a").wholeMatch(in: s)) != nil }'
        'import Synchronization
let i = Mutex(0)'
        'func j(_ d: Duration) {}'
        'func l() -> Int { if #available(iOS 15.0, *) { return 1 }; return 0 }'
        'let k: UInt128 = 1'
    )
    local n=0
    for case in "${planted[@]}"; do
        n=$((n + 1))
        printf '%s\n' "$case" >"$dir/Planted$n.swift"
        if check "$dir/Planted$n.swift" >"$dir/planted.log" 2>&1; then
            echo "FAIL: not reported: $case" >&2; status=1
        fi
        rm "$dir/Planted$n.swift"
    done
    [ $status = 0 ] && echo "ok: check-availability reports each of $n planted uses and passes a clean file"
    return $status
}

case "${1:-}" in
    --self-test) self_test ;;
    "") if check "${TARGETS[@]}"; then echo "ok: ${TARGETS[*]} use nothing above iOS 15 and hold no typed-throws function as a value"; else exit 1; fi ;;
    *) check "$@" ;;
esac

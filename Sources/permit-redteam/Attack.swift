import Foundation

/// One attack of the red-team battery: a class (what it tries), a name, and what it feeds Permit.
struct Attack: Sendable {
    enum Input: Sendable {
        /// A policy file whose `decide` (or load) attacks; run through `permit decide` and, when
        /// that ended cleanly, in-process through `LuaPolicy` to time the call itself.
        case policy(String)
        /// A scenario played with `permit run` against the polite pack.
        case scenario(String)
        /// A scenario played with `permit run` against a policy of its own.
        case played(policy: String, scenario: String)
        /// A ledger file given to `permit decide POLICY --history FILE --event app_launch`;
        /// POLICY is a pack path, or a policy's source when it holds `decide`.
        case history(ledger: String, policy: String)
        /// `permit test` writing its lcov coverage to a FIFO no process reads: the CLI must
        /// refuse, and the FIFO must still be a FIFO afterwards (not replaced by a file).
        case fifoOutput
        /// Files written into the case's directory, then `permit` run with each argument list
        /// in turn (`{dir}` is the directory); the last run's output is judged.
        case commands(files: [String: String], runs: [[String]])
        /// A policy file given to `permit check` (its load, main chunk included, attacks), then
        /// loaded in-process to time the load.
        case check(String)
    }

    var attackClass: String
    var name: String
    var input: Input
    /// Text the CLI's output must contain for the outcome to count as the typed error.
    var expected: [String]
}

/// The battery: one case per attack class, with the variants that took seconds.
enum Battery {
    /// Declares a policy whose decide runs `body`.
    static func policy(_ body: String, prelude: String = "") -> String {
        "\(prelude)\nreturn { name = \"redteam\", decide = function(ctx)\n\(body)\nend }\n"
    }

    /// The C-stack crash: `count` coroutines, each closing the one before from a `__close`
    /// handler, so closing the last recurses through every one in C.
    static func closeChain(_ count: Int) -> String {
        """
        local co = false
        for i = 1, \(count) do
          local prev = co
          co = coroutine.create(function()
            local x <close> = setmetatable({}, { __close = function() if prev then coroutine.close(prev) end end })
            coroutine.yield()
          end)
          coroutine.resume(co)
        end
        coroutine.close(co)
        """
    }

    static let megabyte = "local s = string.rep('x', 1 << 20)\n"

    /// A C function as `__index`, called by table.concat's C loop: no instruction runs and
    /// nothing is allocated between two of its calls, only the call itself.
    static let concatThroughIndex = "table.concat(setmetatable({}, { __index = table.concat }), \"\", 1, 1 << 40)"

    /// The worst shape to compile found: each `or` walks the jump list of every `or` before it.
    static func orChain(bytes: Int) -> String {
        "return " + String(repeating: "''or", count: max(0, bytes - 9) / 4) + "''\n"
    }

    /// A policy whose main chunk (run while loading) does `body` first.
    static func mainChunk(_ body: String) -> String {
        "\(body)\nreturn { name = \"redteam\", decide = function(ctx) return { action = \"none\" } end }\n"
    }

    static let all: [Attack] = [
        Attack(
            attackClass: "crash", name: "coroutine.close chain through __close (5.4.4-9)", input: .policy(policy(closeChain(20_000))),
            expected: ["nested deeper than", "out of memory", "time limit", "budget"]),
        Attack(
            attackClass: "crash", name: "coroutine.close chain, 1,000 deep (fits in memory)", input: .policy(policy(closeChain(1_000))),
            expected: ["nested deeper than"]),
        Attack(
            attackClass: "crash", name: "coroutine.wrap recursion",
            input: .policy(
                policy(
                    """
                      local function f() return coroutine.wrap(f)() end
                      return f()
                    """)), expected: ["nested deeper than"]),
        Attack(
            attackClass: "crash", name: "xpcall handler overflowing while handling (5.4.4-4)",
            input: .policy(
                policy(
                    """
                      local function loop() return 1 + loop() end
                      error(select(2, xpcall(loop, loop)))
                    """)), expected: ["error"]),
        Attack(
            attackClass: "crash", name: "_ENV <const> (5.4.4-2)",
            input: .policy(
                """
                local _ENV <const> = { x = 1 }
                return { name = "e", decide = function() return x end }
                """), expected: ["_ENV <const>"]),
        Attack(
            attackClass: "crash", name: "utf8.codes stray continuation (5.4.4-8)",
            input: .policy(
                policy(
                    """
                      for _ in utf8.codes("a\\x80") do end
                    """)), expected: ["invalid UTF-8"]),
        Attack(
            attackClass: "long C call", name: "table.sort of 20,000 copies of a 1 MiB string",
            input: .policy(
                policy(
                    """
                      local t = {} for i = 1, 20000 do t[i] = s end
                      table.sort(t)
                    """, prelude: megabyte)), expected: ["budget", "time limit"]),
        Attack(
            attackClass: "long C call", name: "table.sort with a comparison on long strings",
            input: .policy(
                policy(
                    """
                      local t = {} for i = 1, 20000 do t[i] = s end
                      table.sort(t, function(a, b) return a < b end)
                    """, prelude: megabyte)), expected: ["budget", "time limit"]),
        Attack(
            attackClass: "long C call", name: "integer keys colliding into one chain",
            input: .policy(
                policy(
                    """
                      local t, step = {}, (1 << 18) - 1
                      for i = 1, 1 << 18 do t[-i] = true end
                      for i = 1, 1 << 17 do t[i * step] = true end
                      for i = 1, 1 << 18 do t[-i] = nil end
                      for i = (1 << 17) + 1, 1 << 18 do t[i * step] = true end
                    """)), expected: ["hash slots", "out of memory", "budget", "time limit"]),
        Attack(
            attackClass: "long C call", name: "colliding keys, a table of 2^11 slots",
            input: .policy(
                policy(
                    """
                      local step = (1 << 11) - 1
                      local t = {}
                      for i = 1, step do t[i * step] = true end
                      t[step] = nil
                      t[(step + 1) * step] = true
                      t[(step + 2) * step] = true
                      error("the rehash finished within the limits")
                    """)), expected: ["budget", "time limit", "the rehash finished within the limits"]),
        Attack(
            attackClass: "long C call", name: "weak table (__mode)",
            input: .policy(
                policy(
                    """
                      local t = setmetatable({}, { __mode = "k" })
                    """)), expected: ["weak tables"]),
        Attack(
            attackClass: "long C call", name: "string.byte over large ranges",
            input: .policy(
                policy(
                    """
                      for i = 1, 1e9 do local x = { s:byte(1, 20000) } end
                    """, prelude: megabyte)), expected: ["budget", "time limit"]),
        Attack(
            attackClass: "long C call", name: "table.unpack of many values",
            input: .policy(
                policy(
                    """
                      local t = {} for i = 1, 20000 do t[i] = i end
                      for i = 1, 1e9 do local n = select('#', table.unpack(t)) end
                    """)), expected: ["budget", "time limit"]),
        Attack(
            attackClass: "long C call", name: "table.pack of many values",
            input: .policy(
                policy(
                    """
                      local t = {} for i = 1, 20000 do t[i] = i end
                      for i = 1, 1e9 do local p = table.pack(table.unpack(t)) end
                    """)), expected: ["budget", "time limit"]),
        Attack(
            attackClass: "long C call", name: "long string equality",
            input: .policy(
                policy(
                    """
                      local a, b = s .. "", string.rep('x', 1 << 20)
                      local n = 0
                      for i = 1, 1e9 do if a == b then n = n + 1 end end
                    """, prelude: megabyte)), expected: ["budget", "time limit"]),
        Attack(
            attackClass: "long C call", name: "long string comparison (<)",
            input: .policy(
                policy(
                    """
                      local a, b = s .. "", string.rep('x', 1 << 20)
                      local n = 0
                      for i = 1, 1e9 do if a < b then n = n + 1 end end
                    """, prelude: megabyte)), expected: ["budget", "time limit"]),
        Attack(
            attackClass: "long C call", name: "utf8.len of a long string",
            input: .policy(
                policy(
                    """
                      for i = 1, 1e9 do local n = utf8.len(s) end
                    """, prelude: megabyte)), expected: ["budget", "time limit"]),
        Attack(
            attackClass: "C loop", name: "table.concat calling a C __index 2^40 times", input: .policy(policy(concatThroughIndex)),
            expected: ["time limit", "budget"]),
        Attack(
            attackClass: "C loop", name: "table.concat through a C __index, main chunk", input: .policy(mainChunk(concatThroughIndex)),
            expected: ["time limit", "budget"]),
        Attack(
            attackClass: "C loop", name: "permit check: the same main chunk", input: .check(mainChunk(concatThroughIndex)),
            expected: ["time limit", "budget"]),
        Attack(
            attackClass: "C loop", name: "table.unpack through a C __index",
            input: .policy(
                policy(
                    """
                      return select('#', table.unpack(setmetatable({}, { __index = table.concat }), 1, 150000))
                    """)),
            // Lua's own stack check (its stack grows under the sandbox's memory cap) may refuse
            // the range first: the argument error pcall catches, as in stock Lua.
            expected: ["time limit", "budget", "too many results to unpack"]),
        Attack(
            attackClass: "C loop", name: "table.move through a C __index and __newindex",
            input: .policy(
                policy(
                    """
                      local t = setmetatable({}, { __index = rawequal, __newindex = rawequal })
                      for i = 1, 1e9 do table.move(t, 1, 100000, 2) end
                    """)), expected: ["time limit", "budget"]),
        Attack(
            attackClass: "compile", name: "policy file of 360 KB of `a and a and ...`",
            input: .policy(
                "local a = ... return " + String(repeating: "a and ", count: 60_000) + "a\n"), expected: ["maxSourceBytes"]),
        Attack(
            attackClass: "compile", name: "permit check: 720 KB of `''or''or...`", input: .check(orChain(bytes: 720_000)),
            expected: ["maxSourceBytes"]),
        Attack(
            attackClass: "compile", name: "permit check: the worst shape just under the cap", input: .check(orChain(bytes: 12_000)),
            expected: ["must return a table"]),
        Attack(
            attackClass: "compile", name: "load of 40,000 `a and` terms",
            input: .policy(
                policy(
                    """
                      local f, err = load("local a = ... return " .. ("a and "):rep(40000) .. "a")
                      error(err)
                    """)), expected: ["maxSourceBytes"]),
        Attack(
            attackClass: "compile", name: "load of the worst shape in a loop",
            input: .policy(
                policy(
                    """
                      local text = "return " .. ("''or"):rep(1500) .. "''"
                      for i = 1, 1e9 do load(text) end
                    """)), expected: ["time limit", "budget"]),
        Attack(
            attackClass: "input walk", name: "string.unpack with a 1 MB format",
            input: .policy(
                policy(
                    """
                      local f = (" "):rep(1 << 20)
                      for i = 1, 1e9 do string.unpack(f, "") end
                    """)), expected: ["time limit", "budget"]),
        Attack(
            attackClass: "input walk", name: "string.packsize with a 1 MB format",
            input: .policy(
                policy(
                    """
                      local f = ("x"):rep(1 << 20)
                      for i = 1, 1e9 do string.packsize(f) end
                    """)), expected: ["time limit", "budget"]),
        Attack(
            attackClass: "input walk", name: "tonumber(s, 36) on 1 MB",
            input: .policy(
                policy(
                    """
                      local z = ("z"):rep(1 << 20)
                      for i = 1, 1e9 do tonumber(z, 36) end
                    """)), expected: ["time limit", "budget"]),
        Attack(
            attackClass: "input walk", name: "permit.at_least with 1 MB versions",
            input: .policy(
                policy(
                    """
                      local v = ("1."):rep(1 << 19) .. "1"
                      local c = { platform = { version = v } }
                      for i = 1, 1e9 do permit.at_least(c, v) end
                    """)), expected: ["time limit", "budget"]),
        Attack(
            attackClass: "input walk", name: "string.format %q of 1 MB",
            input: .policy(
                policy(
                    """
                      for i = 1, 1e9 do string.format("%q", s) end
                    """, prelude: megabyte)), expected: ["time limit", "budget"]),
        Attack(
            attackClass: "alias bomb", name: "nine levels of YAML aliases under params:", input: .scenario(aliasBomb),
            expected: ["alias"]),
        Attack(
            attackClass: "alias bomb", name: "the same aliases used as a mapping key (? *a9 : 1)",
            input: .scenario(aliasBombAsKey), expected: ["alias"]),
        Attack(
            attackClass: "clock overflow", name: "after: steps summing past Int64", input: .scenario(clockOverflow),
            expected: ["years", "clock", "too far"]),
        Attack(
            attackClass: "bundle gate", name: "a pack test that runs ../good.lua (policy:)",
            input: .commands(
                files: borrowedPolicyPack, runs: [["bundle", "{dir}/pack", "--version", "1", "--out", "{dir}/x.permitbundle"]]),
            expected: ["not the pack's policy.lua"]),
        Attack(
            attackClass: "future bundle", name: "created_at months after the device clock",
            input: .commands(
                files: ["s.yaml": futureBundleScenario],
                runs: [
                    ["bundle", "policies/polite", "--version", "1", "--out", "{dir}/now.permitbundle"],
                    ["run", "policies/polite", "{dir}/s.yaml"],
                ]),
            expected: ["created in the future"]),
        Attack(
            attackClass: "NaN", name: "remember = { x = 0/0 }",
            input: .policy(
                policy(
                    """
                      return { action = "none", remember = { x = 0/0 } }
                    """)), expected: ["NaN", "not a number", "finite"]),
        Attack(
            attackClass: "ledger", name: "--history with launches at Int64.max, then a launch",
            input: .history(
                ledger: #"{"schema": 1, "ledger": {"launches": 9223372036854775807}}"#,
                policy: policy(
                    """
                      error("launches " .. ctx.history.launches)
                    """)), expected: ["launches 9223372036854775807"]),
        Attack(
            attackClass: "ledger", name: "initial.ledger counters at Int64.max, every event",
            input: .played(policy: policy("error(\"launches \" .. ctx.history.launches)"), scenario: ledgerAtMaximum),
            expected: ["launches 9223372036854775807"]),
        Attack(
            attackClass: "ledger", name: "--history with launches: 1.5",
            input: .history(
                ledger: #"{"schema": 1, "ledger": {"launches": 1.5}}"#, policy: "policies/polite"), expected: ["not a whole number"]),
        Attack(
            attackClass: "ledger", name: "--history with launches: 1e300",
            input: .history(
                ledger: #"{"launches": 1e300}"#, policy: "policies/polite"), expected: ["not a whole number"]),
        Attack(
            attackClass: "ledger", name: "--history with schema 99",
            input: .history(
                ledger: #"{"schema": 99, "ledger": {}}"#, policy: "policies/polite"), expected: ["newer Permit"]),
        Attack(
            attackClass: "ledger", name: "--history with a negative count",
            input: .history(
                ledger: #"{"soft_prompt": {"shown": -5}}"#, policy: "policies/polite"), expected: ["never negative"]),
        Attack(
            attackClass: "error text", name: "error((\"E\"):rep(1e6))",
            input: .policy(
                policy(
                    """
                      error(("E"):rep(1e6))
                    """)), expected: ["bytes cut"]),
        Attack(
            attackClass: "terminal", name: "ESC, CR and U+202E in an error message",
            input: .policy(
                policy(
                    """
                      error("\\27[2J\\r\\u{202E}forged")
                    """)), expected: [#"\u001B[2J\u000D\u202Eforged"#]),
        Attack(
            attackClass: "output path", name: "--coverage-output naming a FIFO nobody reads", input: .fifoOutput,
            expected: ["no process is reading"]),
    ]

    /// Every counter of the ledger at Int64.max, then every event that counts one; a policy
    /// error names the launches it saw (`permit run` prints the error).
    static var ledgerAtMaximum: String {
        let max = "9223372036854775807"
        return """
            name: ledger at maximum
            device: { os: "16.4" }
            initial:
              ledger:
                launches: \(max)
                foregrounds: \(max)
                prompts_today: \(max)
                soft_prompt: { shown: \(max), accepted: \(max), declined: \(max), dismissed: \(max) }
                system_prompt: { requested: \(max), shown: \(max) }
                settings_prompt: { shown: \(max), opened: \(max), cancelled: \(max) }
                features: { reminders: { opened: \(max) } }
            steps:
              - event: app_launch
              - event: app_foreground
              - { event: feature_opened, feature: reminders }
            """
    }
    /// A pack whose own policy fails its test, and a test that runs a policy beside the pack.
    static let borrowedPolicyPack: [String: String] = [
        "good.lua": "return { name = 'good', decide = function(ctx) return { action = 'none', reason = 'fine' } end }\n",
        "pack/policy.lua": "return { name = 'bad', decide = function(ctx) error('untested') end }\n",
        "pack/tests/a.yaml": "policy: ../../good.lua\ndevice: { os: \"16.4\" }\nsteps:\n  - { event: app_foreground, expect: none }\n",
    ]

    /// A bundle made now, installed by a device whose clock reads the scenarios' start
    /// (2026-01-05): its created_at lies months ahead of that clock.
    static let futureBundleScenario = """
        name: bundle from the future
        start: "2026-01-05T08:00:00Z"
        device: { os: "16.4" }
        steps:
          - event: app_launch
          - policy_update: now.permitbundle
        """

    static var aliasBomb: String {
        var lines = ["name: alias bomb", "device: { os: \"16.4\" }", "params:", "  a0: &a0 [x, x, x, x, x, x, x, x, x]"]
        for level in 1...9 {
            let refs = Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ")
            lines.append("  a\(level): &a\(level) [\(refs)]")
        }
        lines += ["steps:", "  - event: app_foreground"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Yams hashes a mapping's keys to find duplicates while it composes, so a key that is an
    /// alias is expanded there, before any check of ours on the composed tree could run.
    static var aliasBombAsKey: String {
        aliasBomb.replacingOccurrences(of: "steps:", with: "? *a9\n: 1\nsteps:")
    }

    static var clockOverflow: String {
        var text = "name: clock overflow\ndevice: { os: \"16.4\" }\nsteps:\n"
        for _ in 0..<103_000 { text += "  - after: 999999999d\n    event: app_foreground\n" }
        return text
    }
}

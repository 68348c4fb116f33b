// swift-tools-version:6.2
// 6.2: the notification-center client's requirements are `nonisolated(nonsending)` (SE-0461).
import PackageDescription

/// Permit: decides how an app asks for notification permission.
///
/// Layering: each line is a target and the targets it depends on. PermitCore (status model,
/// ledger, engine) knows nothing of Lua or of files people write; PermitLua is the sandbox over
/// the C shim; PermitInput reads YAML, durations, dates and events with file, line and field
/// in every error (it also reads libyaml's parser events through CLibYAML, the system libyaml,
/// to check keys before Yams composes). PermitSimulator is the simulated iPhone and the app on
/// it (the device, a clock that moves when told, the app's process, screen and reinstalls),
/// which the scenario player and the simulation both drive; apps may link it in their own tests,
/// so it depends on PermitCore alone and no Lua. The scenario player, bundle delivery and simulation
/// sit side by side and never import one another: the player installs `policy_update` bundles
/// through Core's `PolicyDelivery`, which the CLI fills with PermitDelivery's. PermitFetch, the
/// app's bundle download (URLSession; FoundationNetworking and libcurl on Linux), sits on
/// PermitDelivery in a target of its own so that the CLI, which never downloads, links no
/// networking and `permit` stays a static binary of its own. PermitServe is `permit serve`'s
/// playground, a web page on loopback (Hummingbird, over SwiftNIO's sockets, no libcurl) that
/// edits, tests and compares one pack through the public APIs of the layers below. Only PermitCLI
/// (the `permit` verbs, a library so that tests run them in-process) and the executables join
/// the layers; the `permit` executable is PermitCLI's entry point and nothing else.
/// Tests/RepositoryTests/LayeringTests.swift checks this list against the targets below and
/// against every `import` line under Sources/.
///
/// What an app links (PermitCore, PermitLua, PermitDelivery, PermitFetch) holds only what an app
/// runs; the tools' pieces live with the tools: text made safe for a terminal in PermitInput
/// (which every tool layer has), coverage export and the static ctx check in PermitCLI, and the
/// recording of policy calls the benchmarks replay in the Benchmarks package, which wraps each
/// simulated process's policy through `Simulation.run`'s `processes` hook.
/// The repository's own checks (layering, function length, documentation, privacy manifests, the
/// generated files, PermitCore's folder order) are a test target of their own, RepositoryTests,
/// which reads files and builds no CLI; the generated files are written by a tool,
/// `permit-generate` (`make generate`), over GeneratedNames, which the check compares with.
///
/// The benchmarks (a C host driving Lua directly, the minimal host, `permit-benchmark`) are a
/// package of their own, Benchmarks/, which depends on this one's library products by path:
/// nothing here builds them, and `permit` links no second Lua host. The red team's runner is a
/// tool (Tools/permit-redteam, `make redteam`), not a layer of the product: no test target
/// depends on it, and the tests read its attack scripts as fixtures (Tools/permit-redteam/attacks).
/// The C shim's public headers are the sandbox and the warm context; its test hooks are the
/// explicit submodule `CLuaShim.TestHooks`, which only test targets import.
///
/// Where Lua comes from follows the platform, so that an app's build depends on no trait: Xcode
/// before 26.4 drops trait-conditioned C defines (github.com/21-DOT-DEV/swift-secp256k1/issues/1159),
/// and an app cannot set a dependency's traits in Xcode anyway. On iOS and macOS, CPermitLua always
/// compiles Lua 5.4 from Lua's own repository, a git submodule at Sources/CPermitLua/lua that SwiftPM
/// checks out with the package (the C compiler decides, from its target: permit_lua.c): every Lua
/// symbol is renamed `permit_…` so that an app linking its own Lua still links, and the io, os and
/// package libraries are left out (no `system`, `popen` or `dlopen`, which iOS refuses). On Linux a
/// trait chooses: `SystemLua`, the default, links the system's Lua 5.4 (Debian's liblua5.4-dev)
/// through CPermitSystemLua; `LuaFromSource` compiles the submodule as the Apple build does, which
/// `make test-lua-source` tests. Enabling both is a build error (permit_lua.c). Either way the Swift
/// code sees Lua through CLuaShim, whose module re-exports lua.h, and calls it by Lua's own names.
///
///   CPermitLua →
///   CPermitLuaFromSource → CPermitLua
///   CLuaShim → CPermitSystemLua, CPermitLua, CPermitLuaFromSource
///   PermitCore →
///   PermitSimulator → PermitCore
///   PermitLua → CLuaShim, PermitCore
///   PermitInput → CLibYAML, PermitCore, Yams
///   PermitScenario → PermitCore, PermitInput, PermitSimulator
///   PermitDelivery → PermitCore, PermitLua, Crypto
///   PermitFetch → PermitCore, PermitDelivery
///   PermitSimulation → PermitCore, PermitInput, PermitLua, PermitSimulator
///   PermitServe → Hummingbird, Logging, PermitCore, PermitDelivery, PermitInput, PermitLua, PermitScenario, PermitSimulation
///   PermitCLI → ArgumentParser, PermitCore, PermitDelivery, PermitInput, PermitLua, PermitScenario, PermitServe, PermitSimulation, PermitSimulator
///   permit → PermitCLI
///   permit-host-example → PermitCore, PermitLua, PermitDelivery, PermitFetch, PermitSimulator
///   permit-redteam → PermitCore, PermitInput, PermitLua, PermitScenario, Yams
///   GeneratedNames → PermitLua
///   permit-generate → GeneratedNames
#if os(Linux)
let defaultLua: Set<String> = ["SystemLua"]
#else
let defaultLua: Set<String> = ["LuaFromSource"]
#endif

/// Where Permit's own Lua is compiled and linked whatever the traits: CLuaShim and the sandbox's
/// tests depend on CPermitLua there with no trait condition; on Linux, a trait chooses their Lua.
let applePlatforms: [Platform] = [.iOS, .macOS, .macCatalyst, .tvOS, .watchOS, .visionOS]

let package = Package(
    name: "Permit",
    // iOS 15: the oldest iOS that Xcode 26 deploys to, and Xcode 26 is the oldest the App Store
    // takes (docs/platform.md, "The floor"). macOS 13: the tools (permit, the scenario reader) use
    // Swift Regex, which needs it. README's "Requirements" states both, with the Xcode and SwiftPM
    // this manifest needs; DocumentationTests keeps the two equal. `make lint`
    // (scripts/check-availability.sh) holds the libraries an app links to the iOS floor.
    platforms: [.macOS(.v13), .iOS(.v15)],
    products: [
        .library(name: "PermitCore", targets: ["PermitCore"]),
        .library(name: "PermitSimulator", targets: ["PermitSimulator"]),
        .library(name: "PermitLua", targets: ["PermitLua"]),
        .library(name: "PermitInput", targets: ["PermitInput"]),
        .library(name: "PermitScenario", targets: ["PermitScenario"]),
        .library(name: "PermitDelivery", targets: ["PermitDelivery"]),
        .library(name: "PermitFetch", targets: ["PermitFetch"]),
        .library(name: "PermitSimulation", targets: ["PermitSimulation"]),
        .executable(name: "permit", targets: ["permit"]),
    ],
    traits: [
        .trait(name: "SystemLua", description: "Linux: link the system's Lua 5.4 (liblua5.4-dev). Linux's default."),
        .trait(
            name: "LuaFromSource",
            description: "Linux: compile Lua 5.4 from its submodule, as iOS and macOS always do. Exclusive with SystemLua."
        ),
        .default(enabledTraits: defaultLua),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        // `permit serve`'s web server (PermitServe), on loopback only.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        // `swift package generate-documentation` (the DocC catalogs; `make docs`). Build-time only.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CPermitSystemLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"]), .brew(["lua@5.4"])]
        ),
        // libyaml's parser events: Yams keeps its own copy of libyaml internal (no product).
        .systemLibrary(
            name: "CLibYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        // Lua 5.4 compiled from Lua's repository (the submodule `lua`, never files of this
        // repository): one translation unit of our own includes Lua's files with every internal
        // function static and every public name prefixed. On Apple platforms it is always
        // compiled; on Linux only with the trait LuaFromSource, so that a clone without the
        // submodule still builds with the system's Lua. The two defines say which traits are on
        // (the C compiler refuses both at once); the Apple build reads neither.
        .target(
            name: "CPermitLua",
            exclude: ["lua"],
            cSettings: [
                .headerSearchPath("lua"),
                .define("PERMIT_LUA_FROM_SOURCE", .when(traits: ["LuaFromSource"])),
                .define("PERMIT_SYSTEM_LUA", .when(traits: ["SystemLua"])),
            ]
        ),
        // Permit's own Lua on Linux with the trait LuaFromSource: an empty target depending on
        // CPermitLua, because one dependency cannot be conditioned on "an Apple platform, or Linux
        // with the trait" (SwiftPM ignores a second declaration of the same dependency).
        .target(name: "CPermitLuaFromSource", dependencies: ["CPermitLua"]),
        .target(
            name: "CLuaShim",
            dependencies: [
                .byName(name: "CPermitLua", condition: .when(platforms: applePlatforms)),
                .byName(name: "CPermitLuaFromSource", condition: .when(platforms: [.linux], traits: ["LuaFromSource"])),
                .byName(name: "CPermitSystemLua", condition: .when(platforms: [.linux], traits: ["SystemLua"])),
            ],
            // The C files live in rooms (Budget, Sandbox, Context, Host, Trace); the headers they
            // share stay at the target's top, found from every room by this path.
            cSettings: [.headerSearchPath(".")]
        ),
        // The libraries an app links each ship a privacy manifest (PrivacyInfo.xcprivacy) declaring
        // the required-reason APIs their sources use (docs/platform.md; PrivacyManifestTests).
        .target(name: "PermitCore", resources: [.process("PrivacyInfo.xcprivacy")]),
        // The simulated iPhone and the app on it, for the scenario player, the simulation and apps'
        // own tests: no Lua, no files people write. It ships in no app, so it needs no privacy manifest.
        .target(name: "PermitSimulator", dependencies: ["PermitCore"]),
        .target(name: "PermitLua", dependencies: ["CLuaShim", "PermitCore"], resources: [.process("PrivacyInfo.xcprivacy")]),
        // Reading files people write: YAML with file, line, column and field in every error; durations.
        .target(
            name: "PermitInput",
            dependencies: ["CLibYAML", "PermitCore", .product(name: "Yams", package: "Yams")]
        ),
        .target(name: "PermitScenario", dependencies: ["PermitCore", "PermitInput", "PermitSimulator"]),
        // Signed policy bundles, hot swap between events, last-good fallback, circuit breaker.
        .target(
            name: "PermitDelivery",
            dependencies: ["PermitCore", "PermitLua", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.process("PrivacyInfo.xcprivacy")]
        ),
        // An app's bundle download: conditional GETs, a size cap, timeouts, backoff; installs
        // through PermitDelivery's `PolicySource`. Apart so the CLI links no networking.
        .target(name: "PermitFetch", dependencies: ["PermitCore", "PermitDelivery"], resources: [.process("PrivacyInfo.xcprivacy")]),
        // `permit simulate`: a user population through the real engine and the simulated device.
        .target(
            name: "PermitSimulation",
            dependencies: ["PermitCore", "PermitLua", "PermitInput", "PermitSimulator"]
        ),
        // `permit serve`: the playground's server, page and pack workspace. The page (HTML, CSS,
        // JavaScript) is Swift string literals, so the static `permit` carries it with no resource bundle.
        .target(
            name: "PermitServe",
            dependencies: [
                "PermitCore", "PermitDelivery", "PermitInput", "PermitLua", "PermitScenario", "PermitSimulation",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `permit` verbs, writing through a `Console`: the executable and the tests run them.
        .target(
            name: "PermitCLI",
            dependencies: [
                "PermitScenario", "PermitInput", "PermitLua", "PermitCore", "PermitDelivery", "PermitSimulation", "PermitSimulator",
                "PermitServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "permit", dependencies: ["PermitCLI"]),
        // `make redteam`: the sandbox's attack battery, run through the real CLI and timed in-process.
        // A tool, not the product; its cases are the data under attacks/, which the tests read too.
        .executableTarget(
            name: "permit-redteam",
            dependencies: ["PermitCore", "PermitInput", "PermitLua", "PermitScenario", .product(name: "Yams", package: "Yams")],
            path: "Tools/permit-redteam",
            exclude: ["attacks"]
        ),
        // `make generate`: the names C and the warm path use, written again from ContextSchema.
        // A tool, not the product: GeneratedNames makes the files, which RepositoryTests compares
        // with the checked-in ones.
        .target(name: "GeneratedNames", dependencies: ["PermitLua"], path: "Tools/GeneratedNames"),
        .executableTarget(name: "permit-generate", dependencies: ["GeneratedNames"], path: "Tools/permit-generate"),
        // A host configuring budgets, prompt cap and store location, and fetching bundles
        // (docs/bundles.md's code); built so it cannot drift.
        .executableTarget(
            name: "permit-host-example", dependencies: ["PermitCore", "PermitLua", "PermitDelivery", "PermitFetch", "PermitSimulator"],
            path: "examples/host"),
        // An app's process for the launch guard's test, which kills it mid-load and launches it
        // again; a test fixture, not part of the product (no target depends on it).
        .executableTarget(
            name: "permit-launch-child", dependencies: ["PermitCore", "PermitDelivery", "PermitLua"],
            path: "Tests/PermitLaunchChild"),
        // What the test targets share: a timeout for awaits, a child-process runner, source scans,
        // the reference's tables, and a probe policy that checks what a wrapper passes on.
        .target(name: "PermitTestSupport", dependencies: ["PermitCore"], path: "Tests/PermitTestSupport"),
        // The app's limits with a deadline a loaded test machine cannot reach, for the test targets
        // that load policies and test something other than the deadline.
        .target(name: "PermitLuaTestSupport", dependencies: ["PermitLua"], path: "Tests/PermitLuaTestSupport"),
        // The in-process `permit` runner that answers like the binary: only the CLI tests need it.
        .target(name: "PermitCLITestSupport", dependencies: ["PermitCLI", "PermitTestSupport"], path: "Tests/PermitCLITestSupport"),
        .testTarget(name: "PermitCoreTests", dependencies: ["PermitCore", "PermitSimulator", "PermitTestSupport"]),
        // The simulated iPhone and the app on it: the device's rules, the process, reinstalls,
        // Settings visits and the queued time change.
        .testTarget(name: "PermitSimulatorTests", dependencies: ["PermitSimulator", "PermitCore", "PermitTestSupport"]),
        // The repository's own checks: they read files (Package.swift against the imports, the
        // docs against the code, function lengths, privacy manifests, PermitCore's folder order)
        // and compare the generated files with what GeneratedNames makes; no product behaviour.
        .testTarget(name: "RepositoryTests", dependencies: ["GeneratedNames", "PermitCore", "PermitTestSupport"]),
        // The sandbox's tests; they reach the C shim's test hooks (`import CLuaShim.TestHooks`) and
        // replay the red team's reproducers from its fixture files (Tools/permit-redteam/attacks).
        // A stock Lua of the same library for comparison: Permit's own (on Linux with the trait
        // LuaFromSource, reached through CLuaShim), or the system's.
        .testTarget(
            name: "PermitLuaTests",
            dependencies: [
                "PermitLua", "PermitLuaTestSupport", "PermitCore", "PermitSimulator", "CLuaShim",
                .byName(name: "CPermitLua", condition: .when(platforms: applePlatforms)),
                .byName(name: "CPermitSystemLua", condition: .when(platforms: [.linux], traits: ["SystemLua"])),
            ]
        ),
        // With the fetcher's tests, against a real HTTP/1.1 server on loopback that they start
        // (Tests/PermitDeliveryTests/TestHTTPServer.swift: POSIX sockets, no dependency).
        .testTarget(
            name: "PermitDeliveryTests",
            dependencies: [
                "PermitDelivery", "PermitFetch", "PermitLua", "PermitCore", "PermitInput", "PermitScenario", "PermitSimulator",
                "PermitTestSupport",
            ]
        ),
        .testTarget(name: "PermitInputTests", dependencies: ["PermitInput", "PermitCore"]),
        // The playground over real HTTP on loopback, and in a real browser driven over WebDriver
        // (Debian's chromium-driver; the client is PermitTestSupport's WebDriver).
        .testTarget(
            name: "PermitServeTests",
            dependencies: [
                "PermitServe", "PermitScenario", "PermitSimulation", "PermitLua", "PermitLuaTestSupport", "PermitCore", "PermitTestSupport",
            ]
        ),
        .testTarget(
            name: "PermitScenarioTests",
            dependencies: [
                "PermitScenario", "PermitInput", "PermitCore", "PermitLua", "PermitLuaTestSupport", "PermitSimulator", "PermitTestSupport",
            ]
        ),
        .testTarget(
            name: "PermitSimulationTests",
            dependencies: ["PermitSimulation", "PermitInput", "PermitCore", "PermitLua", "PermitSimulator", "PermitTestSupport"]
        ),
        // The `permit` verbs, run in-process like the binary; the few tests that must see a real
        // process launch the `permit` that `swift build`/`swift test` built beside the test bundle
        // (`builtExecutable`). The reference's tables are checked here, against every layer.
        .testTarget(
            name: "PermitCLITests",
            dependencies: [
                "PermitCLI", "PermitCLITestSupport", "PermitTestSupport", "PermitScenario", "PermitSimulation", "PermitInput",
                "PermitCore", "PermitLua", "PermitDelivery", "PermitSimulator",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

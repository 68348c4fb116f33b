// swift-tools-version:6.2
import PackageDescription

/// Permit's benchmarks, a package of their own so that the product builds none of them: C hosts
/// driving Lua directly (the reference of `permit-benchmark`, and the minimal host that builds
/// only the ctx fields a policy reads), Permit's policy layer replayed alone, and the
/// `permit-benchmark` command that measures them against Permit in the same run. It depends on
/// the root package by path; run it from the repository root's Benchmarks/ folder:
///
///     cd Benchmarks && swift run -c release permit-benchmark ../policies/polite/policy.lua
///
///   PermitBenchReference → CLuaReference
///   PermitBench → PermitBenchReference, PermitCore, PermitLua, PermitSimulation, PermitSimulator
///   permit-benchmark → ArgumentParser, PermitBench, PermitCore, PermitLua, PermitScenario, PermitSimulation
let package = Package(
    name: "PermitBenchmarks",
    platforms: [.macOS(.v13), .iOS(.v13)],
    products: [
        .executable(name: "permit-benchmark", targets: ["permit-benchmark"])
    ],
    dependencies: [
        .package(name: "Permit", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLuaReference",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"]), .brew(["lua@5.4"])]
        ),
        // The C hosts: plain Lua on the C library's allocator, as a minimal C + Lua host has it.
        .target(name: "PermitBenchReference", dependencies: ["CLuaReference"]),
        .target(
            name: "PermitBench",
            dependencies: [
                "PermitBenchReference",
                .product(name: "PermitCore", package: "Permit"),
                .product(name: "PermitLua", package: "Permit"),
                .product(name: "PermitSimulator", package: "Permit"),
                .product(name: "PermitSimulation", package: "Permit"),
            ]
        ),
        .executableTarget(
            name: "permit-benchmark",
            dependencies: [
                "PermitBench",
                .product(name: "PermitCore", package: "Permit"),
                .product(name: "PermitLua", package: "Permit"),
                .product(name: "PermitScenario", package: "Permit"),
                .product(name: "PermitSimulation", package: "Permit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "PermitBenchTests",
            dependencies: [
                "PermitBench",
                .product(name: "PermitCore", package: "Permit"),
                .product(name: "PermitLua", package: "Permit"),
                .product(name: "PermitSimulation", package: "Permit"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

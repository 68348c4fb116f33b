import Foundation
import PermitTestSupport
import Testing

/// The layering Package.swift states is the real one: its layering comment, its target
/// dependencies and the `import` lines of every target under Sources/ (and the example host)
/// say the same thing. Reads files only, so it is fast and runs with every `make test`.
@Suite struct LayeringTests {
    static let repository = Repository.root

    struct Target {
        var name: String
        var kind: String
        var dependencies: Set<String>
        var path: String?
    }

    /// The targets Package.swift declares, with their dependencies (products by module name).
    static func declaredTargets() throws -> [String: Target] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(target|executableTarget|testTarget|systemLibrary)\("#)
        let starts = manifest.matches(of: declaration)
        var targets: [String: Target] = [:]
        for (index, start) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].range.lowerBound : manifest.endIndex
            let chunk = String(manifest[start.range.upperBound..<end])
            guard let name = chunk.firstMatch(of: #/name: "([^"]+)"/#)?.output.1 else { continue }
            var dependencies = Set<String>()
            // A dependency under a trait (`condition: .when(traits: [...])`) is a dependency all the
            // same: the condition goes before the list is read, so its brackets do not end the list.
            let unconditioned = chunk.replacing(#/,\s*condition: \.when\([^)]*\)/#, with: "")
            if let list = unconditioned.firstMatch(of: #/dependencies: \[([^\]]*)\]/#)?.output.1 {
                let cleaned = list.replacing(#/package: "[^"]+"/#, with: "").replacing(#/\.product\(name: /#, with: "")
                for match in cleaned.matches(of: #/"([^"]+)"/#) { dependencies.insert(String(match.output.1)) }
            }
            let kind = String(manifest[start.range].dropFirst().dropLast())
            let path = chunk.firstMatch(of: #/path: "([^"]+)"/#).map { String($0.output.1) }
            targets[String(name)] = Target(name: String(name), kind: kind, dependencies: dependencies, path: path)
        }
        return targets
    }

    /// The graph as the comment at the top of Package.swift states it: `///   A → B, C`.
    static func statedGraph() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        var graph: [String: Set<String>] = [:]
        for match in manifest.matches(of: #/(?m)^///\s+([\w-]+) →(.*)$/#) {
            let targets = match.output.2.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            graph[String(match.output.1)] = Set(targets.filter { !$0.isEmpty })
        }
        return graph
    }

    /// The modules a target's Swift files import, among `known` (system modules are left out).
    static func imports(of target: Target, among known: Set<String>) throws -> [String: [String]] {
        let directory = repository.appendingPathComponent(target.path ?? "Sources/\(target.name)")
        var found: [String: [String]] = [:]
        // Made once: a regex literal is compiled again at every use.
        let importLine = #/^\s*(?:@\w+\s+)*(?:public |package |internal )?import\s+(\w+)/#
        let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            // The regex runs only on the lines that can hold an import (SourceScan says why).
            for line in SourceScan.lines(of: text, containing: "import") {
                guard let match = line.firstMatch(of: importLine) else { continue }
                let module = String(match.output.1)
                if known.contains(module) { found[module, default: []].append(file) }
            }
        }
        return found
    }

    @Test func theCommentStatesTheDeclaredGraph() throws {
        // Test targets and test support (a target kept under Tests/) are not layers of the product.
        let targets = try Self.declaredTargets().values.filter {
            $0.kind != "testTarget" && $0.kind != "systemLibrary" && !($0.path ?? "").hasPrefix("Tests/")
        }
        let stated = try Self.statedGraph()
        #expect(!targets.isEmpty)
        for target in targets {
            #expect(
                stated[target.name] == target.dependencies,
                "Package.swift's layering comment says \(target.name) → \(stated[target.name].map { $0.sorted() } ?? []), its dependencies are \(target.dependencies.sorted())"
            )
        }
        #expect(Set(stated.keys) == Set(targets.map(\.name)), "the comment names targets Package.swift does not have, or misses some")
    }

    @Test func importsMatchTheDeclaredDependencies() throws {
        let targets = try Self.declaredTargets()
        let products = Set(targets.values.flatMap(\.dependencies)).subtracting(targets.keys)
        let known = Set(targets.keys).union(products)
        for target in targets.values where target.kind == "target" || target.kind == "executableTarget" {
            let imported = try Self.imports(of: target, among: known)
            // C targets (no Swift files) include their dependencies' headers instead.
            let isSwift = !imported.isEmpty || target.dependencies.isEmpty
            for (module, files) in imported where !target.dependencies.contains(module) {
                Issue.record(
                    "\(target.name) imports \(module) (\(files.sorted().joined(separator: ", "))) without declaring it in Package.swift")
            }
            guard isSwift else { continue }
            for dependency in target.dependencies where imported[dependency] == nil {
                Issue.record("\(target.name) declares \(dependency) in Package.swift but imports it nowhere; drop the dependency")
            }
        }
    }

    /// Every module a target imports is one Package.swift declares (a target, a dependency's
    /// product) or the platform's: a dependency's internal module (Yams' `CYaml`, swift-crypto's
    /// `CCryptoBoringSSL`) builds only by accident of how SwiftPM passes module maps along, and
    /// breaks when the dependency renames it.
    @Test func everyImportIsDeclaredOrThePlatforms() throws {
        let targets = try Self.declaredTargets()
        let products = Set(targets.values.flatMap(\.dependencies)).subtracting(targets.keys)
        let platform: Set<String> = [
            "Foundation", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin", "Security", "UIKit", "UserNotifications",
            "os", "Testing", "Observation",
        ]
        let importLine = #/^\s*(?:@\w+\s+)*(?:public |package |internal )?import\s+(\w+)/#
        for target in targets.values where target.kind == "target" || target.kind == "executableTarget" {
            let directory = Self.repository.appendingPathComponent(target.path ?? "Sources/\(target.name)")
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for line in SourceScan.lines(of: text, containing: "import") {
                    guard let module = line.firstMatch(of: importLine).map({ String($0.output.1) }) else { continue }
                    #expect(
                        targets[module] != nil || products.contains(module) || platform.contains(module),
                        "\(target.name)/\(file) imports \(module), which Package.swift does not declare: depend on a product or a target of this package"
                    )
                }
            }
        }
    }

    /// The C shim's test hooks (`CLuaShim.TestHooks`, permit_test_hooks.h) are the tests' alone:
    /// no target that ships, nor a tool or the example host, imports them.
    @Test func onlyTestsImportTheShimsTestHooks() throws {
        let targets = try Self.declaredTargets()
        for target in targets.values where target.kind == "target" || target.kind == "executableTarget" {
            guard !(target.path ?? "").hasPrefix("Tests/") else { continue }
            for (file, text) in try Self.swiftFiles(of: target) {
                for line in SourceScan.lines(of: text, containing: "TestHooks") {
                    let importsHooks = line.contains(#/^\s*(?:@\w+\s+)*import\s+CLuaShim\.TestHooks\b/#)
                    #expect(!importsHooks, "\(target.name)/\(file) imports the shim's test hooks, which only test targets may")
                }
            }
        }
    }

    /// Every target `name` depends on, directly or not.
    static func closure(of name: String, in targets: [String: Target]) -> Set<String> {
        var closure: Set<String> = [], next: [String] = [name]
        while let name = next.popLast() {
            for dependency in targets[name]?.dependencies ?? [] where closure.insert(dependency).inserted {
                next.append(dependency)
            }
        }
        return closure
    }

    /// Networking (FoundationNetworking, which brings libcurl on Linux) is PermitFetch's
    /// alone, so the layers the CLI links stay free of it.
    @Test func onlyTheFetcherImportsNetworking() throws {
        let targets = try Self.declaredTargets()
        for target in targets.values where target.kind == "target" || target.kind == "executableTarget" {
            for (file, text) in try Self.swiftFiles(of: target) {
                let importsNetworking = SourceScan.lines(of: text, containing: "import FoundationNetworking").contains {
                    $0.trimmingCharacters(in: .whitespaces).hasPrefix("import ")
                }
                #expect(
                    !importsNetworking || target.name == "PermitFetch",
                    "\(target.name)/\(file) imports FoundationNetworking; downloads belong in PermitFetch")
            }
        }
    }

    /// The Swift files of a target, by path relative to its folder, with their text.
    static func swiftFiles(of target: Target) throws -> [(String, String)] {
        let directory = Self.repository.appendingPathComponent(target.path ?? "Sources/\(target.name)")
        let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        return try files.filter { $0.hasSuffix(".swift") }.map {
            ($0, try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The rules the layering exists for: the core knows nothing of Lua or files people write;
    /// the scenario player, delivery and simulation sit side by side and never reach into one
    /// another (only the CLI joins them), and the `permit` executable is the CLI library's
    /// entry point alone, so every verb can run in a test's own process.
    @Test func noLayerReachesSideways() throws {
        let targets = try Self.declaredTargets()
        #expect(targets["PermitCore"]?.dependencies == [])
        let support = Set(targets.values.filter { ($0.path ?? "").hasPrefix("Tests/") }.map(\.name))
        for target in targets.values where target.kind != "testTarget" && !support.contains(target.name) {
            let reached = target.dependencies.intersection(support)
            #expect(reached.isEmpty, "\(target.name) ships but depends on test support \(reached.sorted())")
        }
        let siblings = ["PermitScenario", "PermitDelivery", "PermitSimulation", "PermitInput"]
        for target in siblings {
            let reached = targets[target]?.dependencies.intersection(siblings.filter { $0 != "PermitInput" }) ?? []
            #expect(reached.isEmpty, "\(target) depends on \(reached.sorted())")
        }
        #expect(targets["PermitInput"]?.dependencies.contains("PermitLua") == false)
        #expect(targets["PermitScenario"]?.dependencies.contains("PermitLua") == false)
        #expect(targets["permit"]?.dependencies == ["PermitCLI"], "the verbs live in PermitCLI, not in the executable")
        // Tests run the product's code, not its executables: they launch the built `permit`
        // when they need a real process, and read the red team's attack scripts as fixtures.
        let executables = Set(targets.values.filter { $0.kind == "executableTarget" }.map(\.name))
        for target in targets.values where target.kind == "testTarget" || support.contains(target.name) {
            let reached = target.dependencies.intersection(executables)
            #expect(reached.isEmpty, "\(target.name) depends on the executables \(reached.sorted())")
        }
        // The core's tests build no CLI (nor anything above the core but the simulated iPhone
        // they run the engine on, and test support).
        let closure = Self.closure(of: "PermitCoreTests", in: targets)
        #expect(
            closure == ["PermitCore", "PermitSimulator", "PermitTestSupport"], "PermitCoreTests builds \(closure.sorted())")
        // Apps link the simulated iPhone in their own tests: it brings the core and nothing else
        // (no Lua, no YAML), and the players that drive it share it rather than reach each other.
        #expect(targets["PermitSimulator"]?.dependencies == ["PermitCore"], "PermitSimulator depends on more than PermitCore")
        // The CLI never downloads: `permit` links no PermitFetch, so no FoundationNetworking
        // (libcurl on Linux), and links statically without it.
        #expect(!Self.closure(of: "permit", in: targets).contains("PermitFetch"), "permit links the bundle fetcher")
        // The product's CLI carries no benchmark: the measuring hosts live in Benchmarks/.
        #expect(!(targets["PermitCLI"]?.dependencies ?? []).contains { $0.hasPrefix("PermitBench") })
        #expect(targets.keys.allSatisfy { !$0.hasPrefix("PermitBench") && $0 != "permit-benchmark" })
    }
}

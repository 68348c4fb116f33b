// An app's process for the launch guard's test (Tests/PermitDeliveryTests/LaunchGuardTests.swift),
// which kills it in the middle of a policy's work and launches it again:
//
//   permit-launch-child DIRECTORY install BUNDLE   installs BUNDLE (prints "installing" first)
//   permit-launch-child DIRECTORY decide           restores, then decides (prints "deciding" first)
//   permit-launch-child DIRECTORY open             restores, prints what serves, what was set
//                                                  aside and why, and one decision's reason
//
// The limits are generous (a minute, no practical instruction budget), so that a policy whose
// main chunk or decide loops runs until the test kills it, as a C loop no check sees would.
import Foundation
import PermitCore
import PermitDelivery
import PermitLua

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: permit-launch-child DIRECTORY install BUNDLE | decide | open\n".utf8))
    exit(2)
}
var limits = LuaLimits.default
limits.timeLimitMilliseconds = 60_000
limits.instructionsPerCall = 1 << 50
let builtIn = try LuaPolicy(
    source: "return { name = \"builtin\", decide = function(ctx) return { action = \"none\", reason = \"builtin\" } end }",
    chunkName: "builtin/policy.lua", limits: limits)
let source = PolicySource(
    builtIn: builtIn,
    configuration: PolicySource.Configuration(
        pack: "demo", trust: .unsignedForDevelopment, directory: URL(fileURLWithPath: arguments[1]), limits: limits))

let version = try OSVersion(parsing: "17.0")
let context = PolicyContext(
    event: .appForeground, status: .notDetermined, previousStatus: .unknown,
    settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
    now: Int64(Date().timeIntervalSince1970))

switch arguments[2] {
case "install" where arguments.count == 4:
    say("installing")
    do {
        let manifest = try source.install(contentsOf: URL(fileURLWithPath: arguments[3]))
        say("installed version \(manifest.version)")
    } catch {
        say("refused: \(error)")
        exit(1)
    }
case "decide":
    say("deciding")
    _ = try? source.decide(context)
    say("decided")
case "open":
    let status = source.status
    say("serving: \(status.serving)")
    for bundle in status.setAside { say("set aside: version \(bundle.version): \(bundle.reason)") }
    for event in status.events { say("event: \(event)") }
    do {
        say("decision: \(try source.decide(context)?.reason ?? "none")")
    } catch {
        say("decision error: \(error)")
    }
default:
    FileHandle.standardError.write(Data("unknown mode \(arguments[2])\n".utf8))
    exit(2)
}

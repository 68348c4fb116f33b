import Foundation
import PermitCore

/// 2026-01-05 08:00:00 UTC, a Monday.
let start = Date(timeIntervalSince1970: 1_767_600_000)

func version(_ text: String) -> OSVersion { try! OSVersion(parsing: text) }

func platform(_ text: String, appClip: Bool = false) -> Platform { Platform(version: version(text), isAppClip: appClip) }

let hour: TimeInterval = 3600
let day: TimeInterval = 86400

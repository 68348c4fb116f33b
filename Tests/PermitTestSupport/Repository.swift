import Foundation

/// The repository's root folder, found from this file's own path: tests read the docs, packs and
/// fixtures of the checkout they were built from, wherever it is.
public enum Repository {
    /// `Tests/PermitTestSupport/Repository.swift`, three folders up.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

import Foundation
import Testing

@testable import PermitCore

/// The one atomic write the ledger store, the delivery store and the CLI share.
@Suite struct AtomicFileTests {
    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func replacesTheFileWholeAndLeavesNoTemporaryFile() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out.json")
        try AtomicFile.write(Data("old".utf8), to: file)
        try AtomicFile.write(Data("new".utf8), to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.json"])
    }

    @Test func privateFilesGetTheirPermissions() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("release.key")
        try AtomicFile.write(Data("secret".utf8), to: file, permissions: 0o600)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func aMissingDirectoryIsAnErrorUnlessAskedToCreateIt() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a/b/out.json")
        #expect(throws: AtomicFileError.self) { try AtomicFile.write(Data("x".utf8), to: file) }
        try AtomicFile.write(Data("x".utf8), to: file, creatingDirectory: true)
        #expect(FileManager.default.fileExists(atPath: file.path))
    }
}

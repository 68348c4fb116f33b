import Foundation
import PermitCore
import PermitDelivery
import PermitInput

/// The copy files a bundle stands for. A bundle carries the pack's copy as one `copy.json`
/// (its texts by locale and key), not as the pack's `copy/<locale>.yaml` files, so opening one
/// turns it back into those files: a locale whose texts are those of the pack's file on disk
/// gets that file's own text (its comments and layout kept), and any other is written out
/// from the bundle's texts, so that an edited translation shared in a bundle reaches the editor.
enum BundleCopyFiles {
    /// `copy/<locale>.yaml` by path for the bundle's `copy.json` (`data`), for a pack in `folder`.
    static func files(_ data: Data, for folder: PackFolder) throws(PackFolder.PathError) -> [String: String] {
        let copy: PolicyCopy
        do { copy = try PolicyCopy.decode(data) } catch {
            throw PackFolder.PathError(description: "\(BundleManifest.copyFileName) in the bundle: \(error)")
        }
        let disk = try? CopyFiles.read(besidePolicy: folder.root.appendingPathComponent("policy.lua"), shownPack: folder.name)
        var files: [String: String] = [:]
        for (locale, texts) in copy.locales {
            let path = "\(CopyFiles.folder)/\(locale).yaml"
            guard (try? folder.file(path)) != nil else { continue }
            if disk?.locales[locale] == texts, let onDisk = try? folder.read(path)?.text {
                files[path] = onDisk
            } else {
                files[path] = yaml(texts)
            }
        }
        return files
    }

    /// A copy file of `texts`: one `"key": "text"` line each, keys sorted. A JSON string is a
    /// YAML double-quoted scalar, so every text (new lines, quotes, colons) reads back as it was.
    static func yaml(_ texts: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        func quoted(_ text: String) -> String {
            (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        }
        return texts.sorted { $0.key < $1.key }.map { "\(quoted($0.key)): \(quoted($0.value))\n" }.joined()
    }
}

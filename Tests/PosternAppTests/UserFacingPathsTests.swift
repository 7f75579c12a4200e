import Foundation
import Testing

@testable import PosternApp

/// What a user reads (the README, `docs/`, `config/`, `/llms.txt`) names only paths inside the repository: a fresh
/// clone has nothing beside it (issue 68: the README and three API pages cited `../shared/CONTRACT.md`). Each relative
/// path is resolved from the directory of the file that names it (`/llms.txt` from the repository's root), and the
/// names of the project's shared files, which no clone holds, are refused wherever they appear.
@Suite("User-facing files name no path outside the repository")
struct UserFacingPathsTests {
    static let root = ConfigurationKeyListTests.root.standardizedFileURL.path

    /// The files a user reads, each with its text: README.md, every file under docs/ and config/, and `/llms.txt`.
    static func userFacingFiles() throws -> [(path: String, text: String)] {
        var files = [(path: "README.md", text: try String(contentsOfFile: root + "/README.md", encoding: .utf8))]
        for directory in ["docs", "config"] {
            let enumerator = try #require(FileManager.default.enumerator(atPath: root + "/" + directory))
            for case let relative as String in enumerator {
                let path = directory + "/" + relative
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                    !isDirectory.boolValue, let text = try? String(contentsOfFile: root + "/" + path, encoding: .utf8)
                else { continue }
                files.append((path, text))
            }
        }
        files.append(("llms.txt", LLMsDocumentTests.render()))
        return files.sorted { $0.path < $1.path }
    }

    /// The `../` paths in `text` that lead out of the repository from `file`'s directory, and the names of files that
    /// live only beside it. An ellipsis (`.../{id}`) is no path.
    static func outside(_ text: String, in file: String) -> [String] {
        let directory = (file as NSString).deletingLastPathComponent
        let base = directory.isEmpty ? root : root + "/" + directory
        let relative = try! NSRegularExpression(pattern: #"(?<![.\w/])(?:\.\./)+[^\s)`'"\]>,;]*"#)
        let range = NSRange(text.startIndex..., in: text)
        var found = relative.matches(in: text, range: range).compactMap { match -> String? in
            guard let matched = Range(match.range, in: text).map({ String(text[$0]) }) else { return nil }
            let resolved = URL(fileURLWithPath: base + "/" + matched).standardizedFileURL.path
            return resolved == root || resolved.hasPrefix(root + "/") ? nil : matched
        }
        for name in ["shared/CONTRACT.md", "CONTRACT.md", "api-docs/", "shared/bench", "shared/tools"]
        where text.contains(name) {
            found.append(name)
        }
        return found
    }

    @Test("the scan finds a path that leaves the repository, and passes one that stays inside")
    func scanFindsEscapes() {
        #expect(Self.outside("The wire contract is `../shared/CONTRACT.md`.", in: "README.md").contains("../shared/CONTRACT.md"))
        #expect(Self.outside("see [x](../../../elsewhere.md)", in: "docs/api/mailbox.md") == ["../../../elsewhere.md"])
        #expect(Self.outside("see [x](../../README.md)", in: "docs/api/mailbox.md") == [])
        #expect(Self.outside("see [x](../decisions/README.md) and `GET .../{id}/raw`", in: "docs/api/mailbox.md") == [])
        #expect(Self.outside("CONTRACT.md 2.2", in: "docs/SECURITY.md") == ["CONTRACT.md"])
    }

    @Test("README, docs/, config/ and /llms.txt name no path outside the repository")
    func noPathLeavesTheRepository() throws {
        let files = try Self.userFacingFiles()
        #expect(files.count > 20, "\(files.map(\.path))")
        for (path, text) in files {
            let found = Self.outside(text, in: path)
            #expect(found.isEmpty, "\(path) names \(found)")
        }
    }
}

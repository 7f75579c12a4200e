import Foundation
import ServerKit
import SignInProviders
import Testing

@testable import PosternApp

/// Every `POSTERN_*` name a reader meets (docs/, the README, `/llms.txt` and the pages' sources) is a key some
/// configuration part reads, or a variable the repository's own scripts and harnesses read (`POSTERN_BIN`,
/// `POSTERN_ARTIFACTS`): a renamed or removed key cannot live on in the words. The known set comes from code: the
/// names ``ConfigurationLoader`` asks for while it parses (every part's `init(config:)`), the two it reads first
/// (`POSTERN_CONFIG`, `POSTERN_PROFILE`), and the names the scripts, the Makefile and the tests read from their
/// environment. A name written as a family (`POSTERN_SMTP_*`) needs one known key in it.
@Suite("Documented key names: every POSTERN_* name in the docs, llms.txt and the pages is read somewhere")
struct DocumentedKeyNamesTests {
    static let root = ConfigurationKeyListTests.root

    /// The `POSTERN_` names in `text`: whole names, and families (a name ending in `_` or followed by `*`) with a
    /// trailing `*`.
    static func names(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: #"POSTERN_[A-Z0-9_]*[A-Z0-9_](\*)?"#)
        let range = NSRange(text.startIndex..., in: text)
        return Set(
            pattern.matches(in: text, range: range).compactMap { match in
                Range(match.range, in: text).map { String(text[$0]) }.map { name in
                    name.hasSuffix("_") ? name + "*" : name
                }
            })
    }

    /// The names configuration parts read, every value unset, and the loader's own two.
    static var configurationKeys: Set<String> {
        ConfigurationKeyListTests.keysRead { _ = try ConfigurationLoader.parse($0) }
            .union(["POSTERN_CONFIG", "POSTERN_PROFILE"])
    }

    /// What follows `POSTERN_OIDC_<NAME>_` in the keys of one identity provider: those read for a provider the
    /// configuration names (`sample`), so that an example in the docs may name its provider as an operator would.
    static let providerKeySuffixes: Set<String> = {
        let prefix = "POSTERN_OIDC_SAMPLE_"
        let settings = [
            "POSTERN_OIDC_PROVIDERS": "sample", prefix + "ISSUER": "https://sso.example.com",
            prefix + "CLIENT_ID": "postern", prefix + "CLIENT_SECRET": "secret",
        ]
        let read = ConfigurationKeyListTests.keysRead(settings: settings) {
            _ = try SignInProvidersConfiguration(config: $0)
        }
        return Set(read.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
    }()

    /// Whether `name` is one provider's key, `POSTERN_OIDC_<NAME>_<SUFFIX>` with a suffix a provider reads.
    static func isProviderKey(_ name: String) -> Bool {
        guard name.hasPrefix("POSTERN_OIDC_") else { return false }
        let rest = name.dropFirst("POSTERN_OIDC_".count)
        guard let underscore = rest.firstIndex(of: "_") else { return false }
        return providerKeySuffixes.contains(String(rest[rest.index(after: underscore)...]))
    }

    /// The names the repository's scripts, Makefile and tests read from their environment (`${NAME`, `$NAME`,
    /// `os.environ["NAME"]`, `os.environ.get("NAME"`, `environment["NAME"]`).
    static func harnessVariables() throws -> Set<String> {
        let reads = try NSRegularExpression(
            pattern: #"(?:\$\{?|environ(?:\.get)?\(?\[?["']|environment\[")(POSTERN_[A-Z0-9_]+)"#)
        var names: Set<String> = []
        let sources =
            try files(under: ["scripts", "Makefile"], extensions: ["", "py", "sh"])
            + files(under: ["Tests"], extensions: ["py", "swift"])
        for file in sources {
            // A binary file (none are expected) holds no variable a person reads about.
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for match in reads.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
            }
        }
        return names
    }

    /// The regular files under `paths` (relative to the repository root) whose extension is one of `extensions`.
    static func files(under paths: [String], extensions: Set<String>) throws -> [URL] {
        var found: [URL] = []
        for path in paths {
            let url = root.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            guard isDirectory.boolValue else {
                found.append(url)
                continue
            }
            let all = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])?
                .compactMap { $0 as? URL } ?? []
            found += all.filter { file in
                extensions.contains(file.pathExtension)
                    && (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            }
        }
        return found
    }

    /// Where readers meet key names: the docs and README, and the sources of the pages (the web inbox, the owners'
    /// pages and the Pro dashboard, the remote-hash pages), by path.
    static func texts() throws -> [String: String] {
        var texts: [String: String] = [:]
        let pages = [
            "Sources/WebInbox", "Sources/MailboxWebInbox", "Sources/Owners", "Sources/RemoteHashAuth",
        ]
        // The configuration types are where the names are read (a scope such as `POSTERN_OWNER`), not where a reader
        // meets them.
        let readers = { (file: URL) in file.lastPathComponent.hasSuffix("Configuration.swift") }
        for file in try files(under: ["docs", "README.md"] + pages, extensions: ["md", "swift"]) where !readers(file) {
            texts[String(file.path.dropFirst(root.path.count + 1))] = try String(contentsOf: file, encoding: .utf8)
        }
        texts["/llms.txt (private addresses refused)"] = LLMsDocumentTests.render(allowPrivate: false)
        texts["/llms.txt (private addresses allowed)"] = LLMsDocumentTests.render(allowPrivate: true)
        return texts
    }

    @Test("names and families are found as written")
    func findsNames() {
        #expect(
            Self.names(in: "Set `POSTERN_SMTP_HOSTNAME=mx.example`, the `POSTERN_SMTP_*` keys or POSTERN_OAUTH_.")
                == ["POSTERN_SMTP_HOSTNAME", "POSTERN_SMTP_*", "POSTERN_OAUTH_*"])
    }

    @Test("the known set is read from code: configuration parts and harnesses, not a list in this file")
    func knownSetFromCode() throws {
        let keys = Self.configurationKeys
        #expect(keys.contains("POSTERN_SMTP_HOSTNAME") && keys.contains("POSTERN_OUTBOUND_DELIVERY"))
        // An older name a part still reads as an alias is a key.
        #expect(keys.contains("POSTERN_REMOTE_HASH_ALLOW_PRIVATE"))
        #expect(!keys.contains("POSTERN_ARTIFACTS") && !keys.contains("POSTERN_NO_SUCH_KEY"))
        #expect(try Self.harnessVariables().isSuperset(of: ["POSTERN_ARTIFACTS", "POSTERN_BIN"]))
        #expect(Self.providerKeySuffixes.isSuperset(of: ["ISSUER", "CLIENT_ID", "CLIENT_SECRET_FILE", "DISPLAY_NAME"]))
        #expect(Self.isProviderKey("POSTERN_OIDC_CORP_ISSUER") && !Self.isProviderKey("POSTERN_OIDC_CORP_ISSUERS"))
    }

    @Test("every POSTERN_* name in docs/, the README, /llms.txt and the pages is a key or a harness variable")
    func everyNameIsRead() throws {
        let known = Self.configurationKeys.union(try Self.harnessVariables())
        let texts = try Self.texts()
        #expect(texts.keys.contains("README.md") && texts.keys.contains("docs/outbound.md"))
        var unknown: [String] = []
        for (path, text) in texts.sorted(by: { $0.key < $1.key }) {
            for name in Self.names(in: text).sorted() {
                let isKnown =
                    name.hasSuffix("*")
                    ? known.contains { $0.hasPrefix(name.dropLast()) }
                    : known.contains(name) || Self.isProviderKey(name)
                if !isKnown { unknown.append("\(path): \(name)") }
            }
        }
        let list = unknown.joined(separator: "\n")
        #expect(unknown.isEmpty, "named, but read by no configuration part nor harness:\n\(list)")
    }
}

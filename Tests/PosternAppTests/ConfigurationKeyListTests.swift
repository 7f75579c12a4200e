import AgentAuth
import Fetch
import Foundation
import HTTP1
import JMAP
import MailCX
import MailSandbox
import MailTM
import MailpitAPI
import MailosaurAPI
import MailTransfer
import MailboxAccounts
import MCPServer
import OutboundQueue
import OAuthServer
import Owners
import ServerKit
import SignInProviders
import Testing
import WebAuthn
import WebInbox
import WebSocket
import Webhooks

@testable import PosternApp

/// Every key is documented once, in the `## Configuration keys` list of the type that reads it; `config/postern.env`
/// and `docs/configuration.md` name exactly the keys of those lists, so that a key cannot be documented in one place
/// and read in another.
@Suite("Configuration keys: listed by the type that reads them, in postern.env and docs/configuration.md")
struct ConfigurationKeyListTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// One `## Configuration keys` list: each item's key (its first backticked name), and every key any item names
    /// (an older name read as an alias).
    struct KeyList {
        var keys: [String] = []
        var named: Set<String> = []
    }

    /// The list in `source`'s doc comments, nil when there is none. An item may go on over lines indented under it.
    static func keyList(in source: String) -> KeyList? {
        var list: KeyList?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text == "/// ## Configuration keys" {
                list = KeyList()
                continue
            }
            guard list != nil else { continue }
            if text.hasPrefix("///   "), !(list?.keys.isEmpty ?? true) {
                list?.named.formUnion(keyNames(in: Substring(text)))
                continue
            }
            guard text.hasPrefix("/// - `") else {
                if !(list?.keys.isEmpty ?? true) { break }
                continue
            }
            let names = keyNames(in: Substring(text))
            if let first = names.first {
                list?.keys.append(first)
                list?.named.formUnion(names)
            }
        }
        return list
    }

    /// The backticked `UPPER_CASE` names in `text`, in order.
    static func keyNames(in text: Substring) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { index, part in
            guard index % 2 == 1, let first = part.first, first.isLetter,
                part.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }), part.contains("_")
            else { return nil }
            return String(part)
        }
    }

    /// Every list under Sources/, by the file's path from the repository root.
    static func lists() throws -> [String: KeyList] { try scanned.get() }

    /// The lists, read once for the whole suite: each read walks every file under Sources/ (0.35 CPU-s in a debug
    /// build), and the suite asked for one per test case, 34 walks (12.2 CPU-s) where one gives the same answer.
    private static let scanned = Result { try scan() }

    /// Reads every list under Sources/ from the files as they are now.
    private static func scan() throws -> [String: KeyList] {
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        var lists: [String: KeyList] = [:]
        for file in files {
            if let list = keyList(in: try String(contentsOf: file, encoding: .utf8)) {
                lists[String(file.path.dropFirst(root.path.count + 1))] = list
            }
        }
        return lists
    }

    /// The names `read` asks its reader for, each answered from `settings` (every value unset by default).
    static func keysRead(
        settings: [String: String] = [:], _ read: (ConfigurationReader) throws -> Void
    ) -> Set<String> {
        final class Names { var all: Set<String> = [] }
        let names = Names()
        try? read(ConfigurationReader { names.all.insert($0); return settings[$0] })
        return names.all
    }

    /// The parts of ``PosternConfiguration``, each reading its own keys, by the file whose list documents them.
    static var parts: [String: (ConfigurationReader) throws -> Void] {
        [
            "Sources/OAuthServer/OAuthConfiguration.swift": { _ = try OAuthConfiguration(config: $0) },
            "Sources/Owners/OwnersConfiguration.swift": { _ = try OwnersConfiguration(config: $0) },
            "Sources/SignInProviders/SignInProvidersConfiguration.swift": {
                _ = try SignInProvidersConfiguration(config: $0)
            },
            "Sources/AgentAuth/AgentAuthConfiguration.swift": { _ = try AgentAuthConfiguration(config: $0) },
            "Sources/MailboxAccounts/MailboxConfiguration.swift": { _ = try MailboxConfiguration(config: $0) },
            "Sources/MailTM/MailTMConfiguration.swift": { _ = try MailTMConfiguration(config: $0) },
            "Sources/MailCX/MailCXConfiguration.swift": { _ = try MailCXConfiguration(config: $0) },
            "Sources/JMAP/JMAPConfiguration.swift": { _ = try JMAPConfiguration(config: $0) },
            "Sources/MCPServer/MCPConfiguration.swift": { _ = try MCPConfiguration(config: $0) },
            "Sources/WebInbox/WebInboxConfiguration.swift": { _ = try WebInboxConfiguration(config: $0) },
            "Sources/WebAuthn/WebAuthnConfiguration.swift": { _ = try WebAuthnConfiguration(config: $0) },
            "Sources/MailSandbox/SandboxConfiguration.swift": { _ = try SandboxConfiguration(config: $0) },
            "Sources/MailpitAPI/MailpitConfiguration.swift": { _ = try MailpitConfiguration(config: $0) },
            "Sources/MailosaurAPI/MailosaurConfiguration.swift": { _ = try MailosaurConfiguration(config: $0) },
            "Sources/Webhooks/WebhookConfiguration.swift": { _ = try WebhookConfiguration(config: $0) },
            "Sources/Fetch/OutboundAddressConfiguration.swift": { _ = try OutboundAddressConfiguration(config: $0) },
            "Sources/PosternApp/ListenerConfiguration.swift": { _ = try ListenerConfiguration(config: $0) },
            "Sources/PosternApp/IdentityConfiguration.swift": { _ = try IdentityConfiguration(config: $0) },
            "Sources/PosternApp/StorageConfiguration.swift": { _ = try StorageConfiguration(config: $0) },
            "Sources/PosternApp/SigningKeyConfiguration.swift": { _ = try SigningKeyConfiguration(config: $0) },
            "Sources/PosternApp/RateLimitConfiguration.swift": { _ = try RateLimitConfiguration(config: $0) },
            "Sources/PosternApp/PasswordHashConfiguration.swift": { _ = try PasswordHashConfiguration(config: $0) },
            "Sources/PosternApp/DNSConfiguration.swift": { _ = try DNSConfiguration(config: $0) },
            "Sources/PosternApp/ObservabilityConfiguration.swift": { _ = try ObservabilityConfiguration(config: $0) },
            "Sources/PosternApp/SMTPListenerConfiguration.swift": { _ = try SMTPListenerConfiguration(config: $0) },
            "Sources/PosternApp/IMAPListenerConfiguration.swift": { _ = try IMAPListenerConfiguration(config: $0) },
            "Sources/PosternApp/POP3ListenerConfiguration.swift": { _ = try POP3ListenerConfiguration(config: $0) },
            "Sources/PosternApp/SubmissionListenerConfiguration.swift": {
                _ = try SubmissionListenerConfiguration(config: $0)
            },
            "Sources/PosternApp/RecipientPolicyConfiguration.swift": {
                _ = try RecipientPolicyConfiguration(config: $0)
            },
            "Sources/PosternApp/MailRetentionConfiguration.swift": { _ = try MailRetentionConfiguration(config: $0) },
            "Sources/MailTransfer/OutboundConfiguration.swift": { _ = try OutboundConfiguration(config: $0) },
            "Sources/OutboundQueue/OutboundQueueConfiguration.swift": { _ = try OutboundQueueConfiguration(config: $0) },
            "Sources/WebSocket/WebSocketConfiguration.swift": { _ = try WebSocketConfiguration(config: $0) },
        ]
    }

    @Test("the lists together are config/postern.env's keys, each in one list once")
    func listsAreTheFile() throws {
        let lists = try Self.lists()
        #expect(lists.count >= 3)
        let listed = lists.values.flatMap(\.keys)
        #expect(listed.count == Set(listed).count, "a key in two lists: \(listed.sorted())")
        let file = ConfigurationKey.all.map(\.name)
        let onlyListed = Set(listed).subtracting(file).sorted(), onlyInFile = Set(file).subtracting(listed).sorted()
        #expect(Set(listed) == Set(file), "listed only: \(onlyListed); in postern.env only: \(onlyInFile)")
    }

    @Test("docs/configuration.md has a row for each listed key and for no other (but POSTERN_CONFIG, the file)")
    func pageIsTheLists() throws {
        let page = try String(
            contentsOf: Self.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var rows: [String] = []
        for line in page.split(separator: "\n") where line.hasPrefix("| `") {
            rows += Self.keyNames(in: line.split(separator: "|", omittingEmptySubsequences: false)[1])
        }
        let listed = Set(try Self.lists().values.flatMap(\.keys))
        let onlyRows = Set(rows).subtracting(listed).sorted(), missing = listed.subtracting(rows).sorted()
        #expect(Set(rows) == listed.union(["POSTERN_CONFIG"]), "rows only: \(onlyRows); not on the page: \(missing)")
        #expect(rows.count == Set(rows).count, "a key in two rows")
    }

    @Test("each surface's configuration reads exactly the keys its list names", arguments: parts.keys.sorted())
    func partReadsItsList(file: String) throws {
        let list = try #require(try Self.lists()[file], "no ## Configuration keys list in \(file)")
        let read = Self.keysRead(try #require(Self.parts[file]))
        let unlisted = read.subtracting(list.named).sorted(), unread = list.named.subtracting(read).sorted()
        #expect(read == list.named, "read, not listed: \(unlisted); listed, not read: \(unread)")
    }

    @Test("the composite reads its parts' keys and no other; every list is a part's (or the profile's)")
    func compositeReadsItsParts() throws {
        let lists = try Self.lists()
        #expect(lists["Sources/PosternApp/PosternConfiguration.swift"] == nil, "the composite reads no key of its own")
        let partsRead = Self.parts.values.reduce(into: Set<String>()) { $0.formUnion(Self.keysRead($1)) }
        let read = Self.keysRead { _ = try ConfigurationLoader.parse($0) }
        let notParts = read.subtracting(partsRead).sorted(), unread = partsRead.subtracting(read).sorted()
        #expect(read == partsRead, "read by no part: \(notParts); a part the composite does not read: \(unread)")
        // POSTERN_PROFILE is read before the others, to choose the defaults under them (ConfigurationProfileTests).
        #expect(lists["Sources/PosternApp/ConfigurationProfile.swift"]?.keys == ["POSTERN_PROFILE"])
        let unknown = Set(lists.keys).subtracting(Self.parts.keys)
            .subtracting(["Sources/PosternApp/ConfigurationProfile.swift"])
        #expect(unknown.isEmpty, "a list whose type is not checked here: \(unknown.sorted())")
    }

    /// A key and a value its part refuses (typed: the literal in the attribute took a second to type-check).
    static let badValues: [(String, String)] = [
        ("POSTERN_OAUTH_REFRESH_RACE_SECONDS", "61"), ("POSTERN_OAUTH_REFRESH_RACE_SECONDS", "two"),
        ("POSTERN_OAUTH_REFRESH_RETRY_SECONDS", "601"),
        ("POSTERN_OAUTH_CLIENT_METADATA_DOCUMENTS", "maybe"), ("POSTERN_OWNER_SIGNUP", "yes"),
        ("POSTERN_OWNER_MAX_INBOXES", "0"), ("POSTERN_OWNER_SIGNUPS_PER_HOUR", "1001"),
        ("POSTERN_JMAP_EVENT_STREAMS", "0"), ("POSTERN_JMAP_EVENT_STREAMS_PER_CLIENT", "-1"),
        ("POSTERN_JMAP_EVENT_STREAMS", "many"), ("POSTERN_WEB_INBOX_EVENT_STREAMS", "0"),
        ("POSTERN_WEB_INBOX_EVENT_STREAMS_PER_SESSION", "-1"), ("POSTERN_WEB_INBOX_PING_SECONDS", "4"),
        ("POSTERN_MCP_JMAP_REQUEST", "perhaps"), ("POSTERN_SUBMISSION_PORT", "65536"),
        ("POSTERN_SUBMISSIONS_PORT", "-1"), ("POSTERN_SUBMISSION_MAX_CONNECTIONS_PER_CLIENT", "-1"),
        ("POSTERN_SUBMISSION", "sometimes"),
        ("POSTERN_MCP_ALLOWED_ORIGINS", "https://ok.example, app.example"), ("POSTERN_AGENT_POW_SALT", " "),
        ("POSTERN_AGENT_POW_DIFFICULTY", "65"), ("POSTERN_AGENT_POW_MAX_DIFFICULTY", "65"),
        ("POSTERN_AGENT_POW_DYNAMIC", "sometimes"), ("POSTERN_AGENT_INBOX_QUOTA", "-1"),
        ("POSTERN_MAILBOX_POW_DIFFICULTY", "65"), ("POSTERN_MAILBOX_POW_REQUIRED", "maybe"),
        ("POSTERN_MAILBOX_DOMAINS", " , "), ("POSTERN_MAILBOX_SOCKETS_PER_ACCOUNT", "0"), ("POSTERN_OPERATOR_TOKEN", "short"),
        ("POSTERN_SMTP_MAX_SESSION_SECONDS", "0"), ("POSTERN_SMTP_MAX_CONNECTIONS_PER_CLIENT", "-1"),
        ("POSTERN_SMTP_MAX_MESSAGE_BYTES", "1023"), ("POSTERN_SMTP", "sometimes"),
        ("POSTERN_SMTP_PROXY_PROTOCOL", "on"), ("POSTERN_SANDBOX_SMTP_PORT", "70000"),
        ("POSTERN_SANDBOX_SMTP_PORT", "none"), ("POSTERN_SANDBOX_SMTP_PLAINTEXT_AUTH", "always"),
        ("POSTERN_SANDBOX_MAIL_AUTH", "maybe"), ("POSTERN_WEBHOOK_RETRY_SECONDS", "0"),
        ("POSTERN_MAILPIT_PATH", "mailpit/"), ("POSTERN_MAILPIT_PATH", "/mail pit"),
        ("POSTERN_MAILOSAUR_PATH", "mailosaur/"), ("POSTERN_MAILOSAUR_PATH", "/mail//osaur"),
        ("POSTERN_OUTBOUND_ALLOW_PRIVATE", "perhaps"), ("POSTERN_REMOTE_HASH_ALLOW_PRIVATE", "perhaps"),
        ("POSTERN_DRAIN_SECONDS", "301"), ("POSTERN_INSTANCES", "0"), ("POSTERN_MAIL_CHANGES_KEPT", "99"),
        ("POSTERN_AUDIT_DAYS", "0"), ("POSTERN_LOG_LEVEL", "loud"), ("POSTERN_METRICS_TOKEN", "short"),
        ("POSTERN_METRICS_LISTEN", "9090"), ("POSTERN_DNS_RESOLVER", "dns.example"),
        ("POSTERN_DATABASE_URL", "mysql://h/db"), ("POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS", "0"),
        ("POSTERN_DATABASE_CONNECTIONS", "0"), ("POSTERN_DATABASE_CONNECTIONS", "65"),
        ("POSTERN_KEY_RELOAD_SECONDS", "0"),
        ("POSTERN_KEY_PROMOTION_SECONDS", "86401"), ("POSTERN_MAX_CONNECTIONS", "0"),
        ("POSTERN_MAX_CONNECTIONS_PER_CLIENT", "-1"), ("POSTERN_CATCH_ALL_QUOTA", "-1"),
        ("POSTERN_OUTBOUND_DELIVERY", "smarthost"), ("POSTERN_OUTBOUND_SMTP_PORT", "0"),
        ("POSTERN_OUTBOUND_TLS", "dane"), ("POSTERN_RELAY_URL", "http://relay"),
        ("POSTERN_WEBAUTHN_RP_ID", "192.0.2.1"), ("POSTERN_WEBAUTHN_ORIGINS", "http://app.example"),
        ("POSTERN_OIDC_PROVIDERS", "Google"),
    ]

    @Test("a part's own bad value stops the configuration, naming the key", arguments: badValues)
    func surfaceRefusesBadValue(key: String, value: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.parse { [key: value][$0] }
        }
        #expect(error?.key == key)
    }

    @Test("a sign-in provider trusted for emails stops the start while owner sign-up is open, naming its key")
    func trustedEmailsNeedClosedSignUp() throws {
        let provider = [
            "POSTERN_OIDC_PROVIDERS": "corp", "POSTERN_OIDC_CORP_ISSUER": "https://sso.corp.example",
            "POSTERN_OIDC_CORP_CLIENT_ID": "postern", "POSTERN_OIDC_CORP_CLIENT_SECRET": "secret",
            "POSTERN_OIDC_CORP_TRUST_EMAIL": "on",
        ]
        let closed = try ConfigurationLoader.parse { provider[$0] }
        #expect(closed.signInProviders.providers.map(\.name) == ["corp"])
        let open = provider.merging(["POSTERN_OWNER_SIGNUP": "open"]) { $1 }
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.parse { open[$0] } }
        #expect(error?.key == "POSTERN_OIDC_CORP_TRUST_EMAIL")
    }

    @Test("a surface's keys reach its configuration, trimmed and parsed; unset, its defaults stand")
    func surfaceReadsItsKeys() throws {
        let c = try ConfigurationLoader.parse {
            [
                "POSTERN_OAUTH_REFRESH_RACE_SECONDS": " 7 ", "POSTERN_OAUTH_CLIENT_METADATA_DOCUMENTS": "off",
                "POSTERN_OAUTH_CIMD_ALLOW_HOSTS": "a.test, ,b.test", "POSTERN_OAUTH_CIMD_TRUST_CA_FILE": "/ca.pem",
                "POSTERN_OWNER_SIGNUP": "open", "POSTERN_OWNER_MAX_INBOXES": "9",
                "POSTERN_OWNER_SIGNUPS_PER_HOUR": "0",
            ][$0]
        }
        #expect(c.oauth.refreshRaceWindow == 7 && !c.oauth.clientMetadataDocuments)
        #expect(c.oauth.clientMetadataAllowedHosts == ["a.test", "b.test"])
        #expect(c.oauth.clientMetadataTrustedRoots == "/ca.pem")
        #expect(c.owners.signUpOpen && c.owners.maxInboxes == 9 && c.owners.signUpsPerHour == 0)
        let defaults = try ConfigurationLoader.parse { _ in nil }
        #expect(defaults.oauth.refreshRaceWindow == 2 && defaults.oauth.clientMetadataDocuments)
        #expect(defaults.oauth.clientMetadataAllowedHosts.isEmpty && defaults.oauth.clientMetadataTrustedRoots == nil)
        #expect(!defaults.owners.signUpOpen && defaults.owners.maxInboxes == 50 && defaults.owners.signUpsPerHour == 5)
        let mail = try ConfigurationLoader.parse {
            [
                "POSTERN_JMAP_EVENT_STREAMS": "5", "POSTERN_JMAP_EVENT_STREAMS_PER_CLIENT": " 2",
                "POSTERN_MCP_JMAP_REQUEST": "off", "POSTERN_MCP_ALLOWED_ORIGINS": "https://app.example",
            ][$0]
        }
        #expect(mail.jmap.maxEventStreams == 5 && mail.jmap.maxEventStreamsPerClient == 2)
        let origin = try #require(WebOrigin("https://app.example"))
        #expect(!mail.mcp.jmapRequestEnabled && mail.mcp.allowedOrigins == [origin])
        #expect(defaults.jmap.maxEventStreams == 1024 && defaults.jmap.maxEventStreamsPerClient == 8)
        #expect(defaults.mcp.jmapRequestEnabled && defaults.mcp.allowedOrigins.isEmpty)
        let identity = PublicIdentity(baseURL: "https://postern.example", issuer: "https://postern.example")
        #expect(Surfaces.oauthConfiguration(c, identity: identity).refreshRaceWindow == 7)
        #expect(Surfaces.oauthConfiguration(c, identity: identity).issuer == "https://postern.example")
        #expect(Surfaces.ownersConfiguration(c, identity: identity).publicURL == "https://postern.example")
    }
}

import Foundation
import Testing

@testable import PosternApp

@Suite("Configuration")
struct ConfigurationTests {
    private func writeConfigFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("postern-\(UUID().uuidString).env")
            .path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("flags override the environment, which overrides the file")
    func precedence() async throws {
        let file = try writeConfigFile(
            """
            # comment
            JWT_ISSUER=from-file
            POSTERN_PORT=1111
            POSTERN_HOST=10.0.0.1
            POSTERN_AGENT_POW_DIFFICULTY=9
            """)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let c = try await ConfigurationLoader.load(
            configPath: file, environment: ["POSTERN_PORT": "2222", "POSTERN_HOST": "10.0.0.2"],
            overrides: ["POSTERN_PORT": "3333"])
        #expect(c.port == 3333)
        #expect(c.host == "10.0.0.2")
        #expect(c.issuer == "from-file")
        #expect(c.agent.baseDifficulty == 9)
        #expect(c.dataDirectory == "./data")
    }

    @Test("the shipped config file parses and leaves the public URL and issuer to follow the listener")
    func shippedFile() async throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/postern.env").path
        let c = try await ConfigurationLoader.load(configPath: path, environment: [:])
        #expect(c.publicURL == nil)
        #expect(c.issuer == nil)
        #expect(
            c.publicIdentity(listeningOn: c.host, port: c.port)
                == PublicIdentity(baseURL: "http://127.0.0.1:8080", issuer: "http://127.0.0.1:8080"))
        #expect(c.port == 8080)
        #expect(c.agent.dynamicDifficulty)
        #expect(c.mailbox.domains == ["mail.localhost"])
        #expect(c.rateLimits)
    }

    @Test("a missing default config file is no error: every key has its default, the issuer follows the URL")
    func missingDefaultFile() async throws {
        let c = try await ConfigurationLoader.load(
            environment: ["POSTERN_PORT": "9090"], defaultPath: "/nonexistent/config/postern.env")
        #expect(c.port == 9090)
        #expect(c.host == "127.0.0.1")
        #expect(c.dataDirectory == "./data")
        #expect(c.issuer == nil)
        #expect(c.publicIdentity(listeningOn: c.host, port: c.port).issuer == "http://127.0.0.1:9090")
    }

    @Test(
        "POSTERN_DATABASE_URL: unset is the data directory's SQLite file; sqlite:/// and postgres:// are read as given")
    func databaseURL() async throws {
        func location(_ url: String?) async throws -> PosternConfiguration.DatabaseLocation {
            let base = ["POSTERN_DATA_DIR": "/srv/p", "POSTERN_KEY_SECRET": "0123456789abcdef"]
            return try await ConfigurationLoader.load(
                environment: url.map { base.merging(["POSTERN_DATABASE_URL": $0]) { $1 } } ?? base,
                defaultPath: "/nonexistent/config/postern.env"
            ).database()
        }
        #expect(try await location(nil) == .sqlite(path: "/srv/p/postern.sqlite3"))
        #expect(try await location("") == .sqlite(path: "/srv/p/postern.sqlite3"))
        #expect(
            try await location("sqlite:///var/lib/postern/db.sqlite3") == .sqlite(path: "/var/lib/postern/db.sqlite3"))
        let url = "postgres://postern:s3cret@db.internal:5432/postern?sslmode=require"
        #expect(try await location(url) == .postgres(url: url))
        #expect(try await location("postgresql://h/db") == .postgres(url: "postgresql://h/db"))
        for bad in ["mysql://root:s3cret@h/db", "sqlite://relative/path", "s3cret"] {
            do {
                _ = try await location(bad)
                Issue.record("\(bad) was accepted")
            } catch let error as ConfigurationError {
                #expect(error.key == "POSTERN_DATABASE_URL")
                #expect(!"\(error)".contains("s3cret"), "the refusal echoes the URL")
            }
        }
    }

    @Test("PostgreSQL needs POSTERN_KEY_SECRET of at least 16 bytes, never echoed; the key reload settings are bounded")
    func keySettings() async throws {
        func load(_ environment: [String: String]) async throws -> PosternConfiguration {
            try await ConfigurationLoader.load(environment: environment, defaultPath: "/nonexistent/config/postern.env")
        }
        let postgres = ["POSTERN_DATABASE_URL": "postgres://h/db"]
        for secret in [nil, "", "fifteen bytes!!"] {
            do {
                _ = try await load(postgres.merging(secret.map { ["POSTERN_KEY_SECRET": $0] } ?? [:]) { $1 })
                Issue.record("a key secret of \(secret?.utf8.count ?? 0) bytes was accepted")
            } catch let error as ConfigurationError {
                #expect(error.key == "POSTERN_KEY_SECRET")
                #expect(!"\(error)".contains("fifteen"))
            }
        }
        let configuration = try await load(postgres.merging(["POSTERN_KEY_SECRET": "sixteen bytes!!!"]) { $1 })
        #expect(configuration.effectiveKeyPromotionSeconds == 360)
        #expect(try await load(["POSTERN_KEY_RELOAD_SECONDS": "5"]).effectiveKeyPromotionSeconds == 335)
        #expect(try await load(["POSTERN_KEY_PROMOTION_SECONDS": "0"]).effectiveKeyPromotionSeconds == 0)
        for (key, value) in [("POSTERN_KEY_RELOAD_SECONDS", "0"), ("POSTERN_KEY_PROMOTION_SECONDS", "-1")] {
            await #expect(throws: ConfigurationError.self) { try await load([key: value]) }
        }
    }

    @Test("an empty JWT_ISSUER refuses to start, naming the key")
    func emptyIssuer() async throws {
        let file = try writeConfigFile("JWT_ISSUER=\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let error = await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(configPath: file, environment: [:])
        }
        #expect(error?.key == "JWT_ISSUER")
    }

    @Test(
        "bad values are refused with the key named",
        arguments: [
            ("POSTERN_PORT", "eighty"), ("POSTERN_PORT", "70000"), ("POSTERN_RATE_LIMITS", "maybe"),
            ("POSTERN_AGENT_POW_DIFFICULTY", "-1"), ("POSTERN_TRUSTED_PROXIES", "10.0.0.0/33"),
            ("POSTERN_PUBLIC_URL", "ftp://x"), ("POSTERN_AGENT_POW_MAX_DIFFICULTY", "3"),
            ("POSTERN_EVENT_LOOPS", "0"), ("POSTERN_EVENT_LOOPS", "257"), ("POSTERN_EVENT_LOOPS", "two"),
            ("POSTERN_OWNER_SIGNUP", "yes"), ("POSTERN_OWNER_MAX_INBOXES", "0"), ("POSTERN_OWNER_MAX_INBOXES", "101"),
            ("POSTERN_OWNER_SIGNUPS_PER_HOUR", "-1"), ("POSTERN_SMTP_ACCEPT", "all"), ("POSTERN_OPERATOR_TOKEN", "short"),
            ("POSTERN_RECIPIENT_DELIMITER", "@"), ("POSTERN_RECIPIENT_DELIMITER", "a"), ("POSTERN_CATCH_ALL_QUOTA", "0"),
        ])
    func badValues(key: String, value: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.parse { ["JWT_ISSUER": "x", key: value][$0] }
        }
        #expect(error?.key == key)
    }

    @Test("owners' inbox cap and sign-up rate: 50 and 5 an hour by default, set by their keys, given to the owners")
    func ownerLimits() throws {
        let identity = PublicIdentity(baseURL: "http://127.0.0.1:8080", issuer: "x")
        let parsed = try ConfigurationLoader.parse { ["JWT_ISSUER": "x"][$0] }
        let defaults = Surfaces.ownersConfiguration(parsed, identity: identity)
        #expect(defaults.maxInboxes == 50 && defaults.signUpsPerHour == 5)
        let set = try ConfigurationLoader.parse {
            ["JWT_ISSUER": "x", "POSTERN_OWNER_MAX_INBOXES": "100", "POSTERN_OWNER_SIGNUPS_PER_HOUR": "0"][$0]
        }
        let owners = Surfaces.ownersConfiguration(set, identity: identity)
        #expect(owners.maxInboxes == 100 && owners.signUpsPerHour == 0)
    }

    @Test("catch-all settings: accept local, delimiter +, 1 GiB, no operator token by default; each taken as given")
    func catchAllSettings() throws {
        let defaults = try ConfigurationLoader.parse { ["JWT_ISSUER": "x"][$0] }
        #expect(!defaults.smtpAcceptAny && defaults.recipientDelimiter == "+" && defaults.catchAllQuota == 1 << 30)
        #expect(defaults.operatorToken == nil)
        let set = try ConfigurationLoader.parse {
            [
                "JWT_ISSUER": "x", "POSTERN_SMTP_ACCEPT": "ANY", "POSTERN_RECIPIENT_DELIMITER": "",
                "POSTERN_CATCH_ALL_QUOTA": "1000", "POSTERN_OPERATOR_TOKEN": String(repeating: "t", count: 32),
            ][$0]
        }
        #expect(set.smtpAcceptAny && set.recipientDelimiter.isEmpty && set.catchAllQuota == 1000)
        #expect(set.operatorToken == String(repeating: "t", count: 32))
    }

    @Test("POSTERN_OWNER_SIGNUP: closed unless it says open, in any case")
    func ownerSignUp() throws {
        #expect(try !ConfigurationLoader.parse { ["JWT_ISSUER": "x"][$0] }.owners.signUpOpen)
        #expect(try ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_OWNER_SIGNUP": " Open "][$0] }.owners.signUpOpen)
        #expect(try !ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_OWNER_SIGNUP": "closed"][$0] }.owners.signUpOpen)
    }

    @Test("POSTERN_EVENT_LOOPS: unset is one loop per processor; 1 to 256 is taken as given")
    func eventLoops() throws {
        #expect(try ConfigurationLoader.parse { ["JWT_ISSUER": "x"][$0] }.eventLoops == nil)
        #expect(try ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_EVENT_LOOPS": "1"][$0] }.eventLoops == 1)
        #expect(
            try ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_EVENT_LOOPS": " 256 "][$0] }.eventLoops == 256)
    }

    @Test("an explicit config file that does not exist is an error, from --config or POSTERN_CONFIG")
    func missingExplicitFile() async throws {
        let flag = await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(configPath: "/nonexistent/postern.env", environment: [:])
        }
        #expect(flag?.key == "POSTERN_CONFIG")
        let environment = await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(environment: ["POSTERN_CONFIG": "/nonexistent/postern.env"])
        }
        #expect(environment?.key == "POSTERN_CONFIG")
    }

    @Test("on/off switches, lists and PEM newlines")
    func switchesAndLists() throws {
        let c = try ConfigurationLoader.parse {
            [
                "JWT_ISSUER": "x", "POSTERN_RATE_LIMITS": "off", "POSTERN_AGENT_POW_DYNAMIC": "OFF",
                "POSTERN_MAILBOX_DOMAINS": "a.test, b.test", "POSTERN_TRUSTED_PROXIES": "10.0.0.0/8,fd00::/8",
                "JWT_PUBLIC_KEY": "-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----",
            ][$0]
        }
        #expect(!c.rateLimits)
        #expect(!c.agent.dynamicDifficulty)
        #expect(c.mailbox.domains == ["a.test", "b.test"])
        #expect(c.trustedProxies == ["10.0.0.0/8", "fd00::/8"])
        #expect(c.jwtPublicKeyPEM == "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")
    }

    @Test("outbound policy: POSTERN_OUTBOUND_* with the remote-hash names as aliases the new names override")
    func outboundAliases() throws {
        let old = try ConfigurationLoader.parse {
            ["POSTERN_REMOTE_HASH_ALLOW_PRIVATE": "true", "POSTERN_REMOTE_HASH_ALLOWED_HOSTS": "a.test"][$0]
        }
        #expect(old.outboundAllowPrivate && old.outboundAllowedHosts == ["a.test"])
        let both = try ConfigurationLoader.parse {
            [
                "POSTERN_REMOTE_HASH_ALLOW_PRIVATE": "true", "POSTERN_OUTBOUND_ALLOW_PRIVATE": "false",
                "POSTERN_REMOTE_HASH_ALLOWED_HOSTS": "a.test", "POSTERN_OUTBOUND_ALLOWED_HOSTS": "b.test, c.test",
            ][$0]
        }
        #expect(!both.outboundAllowPrivate && both.outboundAllowedHosts == ["b.test", "c.test"])
        #expect(!(try ConfigurationLoader.parse { _ in nil }).outboundAllowPrivate)
    }

    @Test("POSTERN_WEBHOOK_RETRY_SECONDS: the documented default, a list, and refusals naming the key")
    func webhookRetries() throws {
        #expect(try ConfigurationLoader.parse { _ in nil }.webhookRetrySeconds == [30, 120, 600, 3600, 21600])
        #expect(
            try ConfigurationLoader.parse { ["POSTERN_WEBHOOK_RETRY_SECONDS": " 1, 2 ,3"][$0] }.webhookRetrySeconds
                == [1, 2, 3])
        for bad in ["1,x", "0", "1,,2", "90000", Array(repeating: "1", count: 21).joined(separator: ",")] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ConfigurationLoader.parse { ["POSTERN_WEBHOOK_RETRY_SECONDS": bad][$0] }
            }
        }
    }

    @Test("POSTERN_MCP_ALLOWED_ORIGINS: none by default, a list of origins, and a refusal naming the key")
    func mcpOrigins() throws {
        #expect(try ConfigurationLoader.parse { _ in nil }.mcp.allowedOrigins.isEmpty)
        let parsed = try ConfigurationLoader.parse {
            ["POSTERN_MCP_ALLOWED_ORIGINS": "http://localhost:6274, https://app.example"][$0]
        }
        #expect(parsed.mcp.allowedOrigins.map(\.description) == ["http://localhost:6274", "https://app.example"])
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.parse { ["POSTERN_MCP_ALLOWED_ORIGINS": "app.example"][$0] }
        }
    }
}

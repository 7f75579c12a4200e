import Foundation
import MailboxAccounts
import PasswordHashing
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
        #expect(c.listener.port == 3333)
        #expect(c.listener.host == "10.0.0.2")
        #expect(c.identity.issuer == "from-file")
        #expect(c.agent.baseDifficulty == 9)
        #expect(c.storage.dataDirectory == "./data")
    }

    @Test("the shipped config file parses and leaves the public URL and issuer to follow the listener")
    func shippedFile() async throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/postern.env").path
        let c = try await ConfigurationLoader.load(configPath: path, environment: [:])
        #expect(c.identity.publicURL == nil)
        #expect(c.identity.issuer == nil)
        #expect(
            c.identity.publicIdentity(listeningOn: c.listener.host, port: c.listener.port)
                == PublicIdentity(baseURL: "http://127.0.0.1:8080", issuer: "http://127.0.0.1:8080"))
        #expect(c.listener.port == 8080)
        #expect(c.agent.dynamicDifficulty)
        #expect(c.mailbox.domains == ["mail.localhost"])
        #expect(c.rateLimits.enabled)
    }

    @Test("a missing default config file is no error: every key has its default, the issuer follows the URL")
    func missingDefaultFile() async throws {
        let c = try await ConfigurationLoader.load(
            environment: ["POSTERN_PORT": "9090"], defaultPath: "/nonexistent/config/postern.env")
        #expect(c.listener.port == 9090)
        #expect(c.listener.host == "127.0.0.1")
        #expect(c.storage.dataDirectory == "./data")
        #expect(c.identity.issuer == nil)
        let identity = c.identity.publicIdentity(listeningOn: c.listener.host, port: c.listener.port)
        #expect(identity.issuer == "http://127.0.0.1:9090")
    }

    @Test(
        "POSTERN_DATABASE_URL: unset is SQLite's file; sqlite:///, postgres:// and key=value read as given; hosts need read-write")
    func databaseURL() async throws {
        func location(_ url: String?) async throws -> StorageConfiguration.DatabaseLocation {
            let base = ["POSTERN_DATA_DIR": "/srv/p", "POSTERN_KEY_SECRET": "0123456789abcdef"]
            return try await ConfigurationLoader.load(
                environment: url.map { base.merging(["POSTERN_DATABASE_URL": $0]) { $1 } } ?? base,
                defaultPath: "/nonexistent/config/postern.env"
            ).storage.database()
        }
        #expect(try await location(nil) == .sqlite(path: "/srv/p/postern.sqlite3"))
        #expect(try await location("") == .sqlite(path: "/srv/p/postern.sqlite3"))
        #expect(
            try await location("sqlite:///var/lib/postern/db.sqlite3") == .sqlite(path: "/var/lib/postern/db.sqlite3"))
        let url = "postgres://postern:s3cret@db.internal:5432/postern?sslmode=require"
        #expect(try await location(url) == .postgres(url: url))
        #expect(try await location("postgresql://h/db") == .postgres(url: "postgresql://h/db"))
        let hosts = "postgres://postern:s3cret@h1:5432,h2:5433/postern?target_session_attrs=read-write&connect_timeout=2"
        #expect(try await location(hosts) == .postgres(url: hosts))
        let pairs = "host=h1,h2 port=5432,5433 dbname=postern password=s3cret target_session_attrs=read-write"
        #expect(try await location(pairs) == .postgres(url: pairs))
        // Several hosts without target_session_attrs=read-write could land writes on a standby: refused, naming it.
        for unsafe in [
            "postgres://postern:s3cret@h1:5432,h2:5433/postern", "postgres://postern:s3cret@h1,h2/p?target_session_attrs=any",
            "host=h1,h2 dbname=postern password=s3cret",
        ] {
            await #expect(throws: ConfigurationError.self) { try await location(unsafe) }
            do {
                _ = try await location(unsafe)
            } catch let error as ConfigurationError {
                #expect(error.key == "POSTERN_DATABASE_URL")
                #expect("\(error)".contains("target_session_attrs=read-write"))
                #expect(!"\(error)".contains("s3cret"), "the refusal echoes the URL")
            }
        }
        for bad in [
            "mysql://root:s3cret@h/db", "sqlite://relative/path", "s3cret", "postgres://h/db?s3cret=1",
            "host=h password=s3cret bogus=1",
        ] {
            do {
                _ = try await location(bad)
                Issue.record("\(bad) was accepted")
            } catch let error as ConfigurationError {
                #expect(error.key == "POSTERN_DATABASE_URL")
                #expect(!"\(error)".contains("s3cret"), "the refusal echoes the URL")
            }
        }
    }

    @Test("POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS: 10 by default, 1 to 600 taken as given, else refused naming the key")
    func commitTimeout() async throws {
        func load(_ value: String?) async throws -> StorageConfiguration {
            try await ConfigurationLoader.load(
                environment: value.map { ["POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS": $0] } ?? [:],
                defaultPath: "/nonexistent/config/postern.env"
            ).storage
        }
        #expect(try await load(nil).commitTimeoutSeconds == 10)
        #expect(try await load("1").commitTimeoutSeconds == 1)
        #expect(try await load("600").commitTimeoutSeconds == 600)
        for bad in ["0", "601", "-1", "ten"] {
            do {
                _ = try await load(bad)
                Issue.record("\(bad) was accepted")
            } catch let error as ConfigurationError {
                #expect(error.key == "POSTERN_DATABASE_COMMIT_TIMEOUT_SECONDS")
            }
        }
    }

    @Test("POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY: off by default, on for PostgreSQL, refused with SQLite")
    func requireSynchronousStandby() async throws {
        func load(_ environment: [String: String]) async throws -> StorageConfiguration {
            try await ConfigurationLoader.load(environment: environment, defaultPath: "/nonexistent/config/postern.env")
                .storage
        }
        let postgres = ["POSTERN_DATABASE_URL": "postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write",
                        "POSTERN_KEY_SECRET": String(repeating: "k", count: 32)]
        #expect(try await load(postgres).requireSynchronousStandby == false)
        #expect(try await load(postgres.merging(["POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY": "on"]) { $1 })
            .requireSynchronousStandby)
        for (environment, why) in [
            (["POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY": "on"], "SQLite"),
            (postgres.merging(["POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY": "always"]) { $1 }, "not a flag"),
        ] {
            do {
                _ = try await load(environment)
                Issue.record("accepted (\(why))")
            } catch let error as ConfigurationError {
                #expect(error.key == "POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY")
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
        #expect(configuration.signingKeys.effectivePromotionSeconds == 360)
        #expect(try await load(["POSTERN_KEY_RELOAD_SECONDS": "5"]).signingKeys.effectivePromotionSeconds == 335)
        #expect(try await load(["POSTERN_KEY_PROMOTION_SECONDS": "0"]).signingKeys.effectivePromotionSeconds == 0)
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
            ("POSTERN_OWNER_SIGNUPS_PER_HOUR", "-1"), ("POSTERN_OWNER_SECOND_FACTOR", "required"), ("POSTERN_SMTP_ACCEPT", "all"), ("POSTERN_OPERATOR_TOKEN", "short"),
            ("POSTERN_RECIPIENT_DELIMITER", "@"), ("POSTERN_RECIPIENT_DELIMITER", "a"), ("POSTERN_CATCH_ALL_QUOTA", "0"),
            ("POSTERN_PASSWORD_ARGON2_MEMORY_KIB", "7"), ("POSTERN_PASSWORD_ARGON2_MEMORY_KIB", "1048577"),
            ("POSTERN_PASSWORD_ARGON2_MEMORY_KIB", "lots"), ("POSTERN_PASSWORD_ARGON2_ITERATIONS", "0"),
            ("POSTERN_PASSWORD_ARGON2_ITERATIONS", "11"),
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

    @Test("password costs: OWASP's m=19456 KiB, t=2 by default, set by their keys, given to owners and mailboxes alike")
    func passwordCosts() throws {
        let identity = PublicIdentity(baseURL: "http://127.0.0.1:8080", issuer: "x")
        let parsed = try ConfigurationLoader.parse { ["JWT_ISSUER": "x"][$0] }
        #expect(Surfaces.ownersConfiguration(parsed, identity: identity).argon2 == Argon2Parameters())
        #expect(parsed.passwords.argon2 == Argon2Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1))
        let set = try ConfigurationLoader.parse {
            ["JWT_ISSUER": "x", "POSTERN_PASSWORD_ARGON2_MEMORY_KIB": "12288", "POSTERN_PASSWORD_ARGON2_ITERATIONS": "3"][$0]
        }
        let costs = Argon2Parameters(memoryKiB: 12_288, iterations: 3, parallelism: 1)
        #expect(Surfaces.ownersConfiguration(set, identity: identity).argon2 == costs)
        let mailbox = Surfaces.mailboxConfiguration(set, issuer: "x", sandboxPort: nil)
        #expect(mailbox.argon2 == costs)
        #expect(mailbox.authKeyArgon2 == .mailTDAuthKey, "Mail.td's auth_key keeps the SDK's costs")
    }

    @Test("catch-all settings: accept local, delimiter +, 1 GiB, no operator token by default; each taken as given")
    func catchAllSettings() throws {
        let defaults = try ConfigurationLoader.parse { ["JWT_ISSUER": "x"][$0] }
        #expect(!defaults.recipients.acceptAny && defaults.recipients.recipientDelimiter == "+")
        #expect(defaults.recipients.catchAllQuota == 1 << 30)
        #expect(defaults.mailbox.operatorToken == nil)
        let set = try ConfigurationLoader.parse {
            [
                "JWT_ISSUER": "x", "POSTERN_SMTP_ACCEPT": "ANY", "POSTERN_RECIPIENT_DELIMITER": "",
                "POSTERN_CATCH_ALL_QUOTA": "1000", "POSTERN_OPERATOR_TOKEN": String(repeating: "t", count: 32),
            ][$0]
        }
        #expect(set.recipients.acceptAny && set.recipients.recipientDelimiter.isEmpty)
        #expect(set.recipients.catchAllQuota == 1000)
        #expect(set.mailbox.operatorToken == String(repeating: "t", count: 32))
    }

    @Test("POSTERN_OWNER_SIGNUP: closed unless it says open, in any case")
    func ownerSignUp() throws {
        #expect(try !ConfigurationLoader.parse { ["JWT_ISSUER": "x"][$0] }.owners.signUpOpen)
        #expect(try ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_OWNER_SIGNUP": " Open "][$0] }.owners.signUpOpen)
        #expect(try !ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_OWNER_SIGNUP": "closed"][$0] }.owners.signUpOpen)
    }

    @Test("POSTERN_EVENT_LOOPS: unset is one loop per processor; 1 to 256 is taken as given")
    func eventLoops() throws {
        #expect(try ConfigurationLoader.parse { ["JWT_ISSUER": "x"][$0] }.listener.eventLoops == nil)
        #expect(
            try ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_EVENT_LOOPS": "1"][$0] }.listener.eventLoops == 1)
        #expect(
            try ConfigurationLoader.parse { ["JWT_ISSUER": "x", "POSTERN_EVENT_LOOPS": " 256 "][$0] }.listener.eventLoops
                == 256)
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
        #expect(!c.rateLimits.enabled)
        #expect(!c.agent.dynamicDifficulty)
        #expect(c.mailbox.domains == ["a.test", "b.test"])
        #expect(c.listener.trustedProxies == ["10.0.0.0/8", "fd00::/8"])
        #expect(c.signingKeys.publicKeyPEM == "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")
    }

    @Test("outbound policy: POSTERN_OUTBOUND_* with the remote-hash names as aliases the new names override")
    func outboundAliases() throws {
        let old = try ConfigurationLoader.parse {
            ["POSTERN_REMOTE_HASH_ALLOW_PRIVATE": "true", "POSTERN_REMOTE_HASH_ALLOWED_HOSTS": "a.test"][$0]
        }
        #expect(old.outboundAddresses.allowPrivate && old.outboundAddresses.allowedHosts == ["a.test"])
        let both = try ConfigurationLoader.parse {
            [
                "POSTERN_REMOTE_HASH_ALLOW_PRIVATE": "true", "POSTERN_OUTBOUND_ALLOW_PRIVATE": "false",
                "POSTERN_REMOTE_HASH_ALLOWED_HOSTS": "a.test", "POSTERN_OUTBOUND_ALLOWED_HOSTS": "b.test, c.test",
            ][$0]
        }
        #expect(!both.outboundAddresses.allowPrivate && both.outboundAddresses.allowedHosts == ["b.test", "c.test"])
        #expect(!(try ConfigurationLoader.parse { _ in nil }).outboundAddresses.allowPrivate)
    }

    @Test("POSTERN_WEBHOOK_RETRY_SECONDS: the documented default, a list, and refusals naming the key")
    func webhookRetries() throws {
        #expect(try ConfigurationLoader.parse { _ in nil }.webhooks.retrySeconds == [30, 120, 600, 3600, 21600])
        #expect(
            try ConfigurationLoader.parse { ["POSTERN_WEBHOOK_RETRY_SECONDS": " 1, 2 ,3"][$0] }.webhooks.retrySeconds
                == [1, 2, 3])
        for bad in ["1,x", "0", "1,,2", "90000", Array(repeating: "1", count: 21).joined(separator: ",")] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ConfigurationLoader.parse { ["POSTERN_WEBHOOK_RETRY_SECONDS": bad][$0] }
            }
        }
    }

    @Test("the SMTP listener's and the sandbox's keys: their defaults, and each taken as given")
    func smtpAndSandbox() throws {
        let defaults = try ConfigurationLoader.parse { _ in nil }
        #expect(defaults.smtp.enabled && defaults.smtp.host == nil && defaults.smtp.port == 2525)
        #expect(defaults.smtp.hostname == "localhost" && defaults.smtp.maxMessageBytes == 25 * 1024 * 1024)
        #expect(defaults.smtp.maxConnectionsPerClient == 16 && defaults.smtp.maxSessionSeconds == 1800)
        #expect(!defaults.smtp.proxyProtocol && defaults.smtp.tlsCertificate == nil && defaults.smtp.tlsKey == nil)
        #expect(defaults.sandbox.smtpPort == 2587 && defaults.sandbox.mailAuthentication)
        #expect(defaults.sandbox.plaintextAuthOnLoopback)
        let set = try ConfigurationLoader.parse {
            [
                "POSTERN_SMTP": "off", "POSTERN_SMTP_HOST": "::1", "POSTERN_SMTP_PORT": "25",
                "POSTERN_SMTP_HOSTNAME": "mx.example", "POSTERN_SMTP_MAX_MESSAGE_BYTES": "2048",
                "POSTERN_SMTP_MAX_CONNECTIONS_PER_CLIENT": "0", "POSTERN_SMTP_MAX_SESSION_SECONDS": " 60 ",
                "POSTERN_SMTP_PROXY_PROTOCOL": "on", "POSTERN_TRUSTED_PROXIES": "10.0.0.0/8",
                "POSTERN_SMTP_TLS_CERT": "/c.pem", "POSTERN_SMTP_TLS_KEY": "/k.pem", "POSTERN_SANDBOX_SMTP_PORT": "OFF",
                "POSTERN_SANDBOX_MAIL_AUTH": "off", "POSTERN_SANDBOX_SMTP_PLAINTEXT_AUTH": "never",
            ][$0]
        }
        #expect(!set.smtp.enabled && set.smtp.host == "::1" && set.smtp.port == 25 && set.smtp.hostname == "mx.example")
        #expect(set.smtp.maxMessageBytes == 2048 && set.smtp.maxConnectionsPerClient == 0)
        #expect(set.smtp.maxSessionSeconds == 60 && set.smtp.proxyProtocol)
        #expect(set.smtp.tlsCertificate == "/c.pem" && set.smtp.tlsKey == "/k.pem")
        #expect(set.sandbox.smtpPort == nil && !set.sandbox.mailAuthentication && !set.sandbox.plaintextAuthOnLoopback)
        #expect(try ConfigurationLoader.parse { ["POSTERN_SANDBOX_SMTP_PORT": "0"][$0] }.sandbox.smtpPort == 0)
        let alone = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.parse { ["POSTERN_SMTP_TLS_CERT": "/c.pem"][$0] }
        }
        #expect(alone?.key == "POSTERN_SMTP_TLS_KEY")
    }

    @Test("POSTERN_SMTP_PORT=off turns off the ingest listener only, as the sandbox's off does its; junk is refused")
    func smtpPortOff() throws {
        for off in ["off", "OFF", " Off "] {
            let parsed = try ConfigurationLoader.parse { ["POSTERN_SMTP_PORT": off][$0] }
            #expect(parsed.smtp.port == nil && parsed.smtp.enabled && parsed.sandbox.smtpPort == 2587)
        }
        #expect(try ConfigurationLoader.parse { ["POSTERN_SMTP_PORT": "0"][$0] }.smtp.port == 0)
        for bad in ["no", "70000", "-1"] {
            let refused = #expect(throws: ConfigurationError.self) {
                try ConfigurationLoader.parse { ["POSTERN_SMTP_PORT": bad][$0] }
            }
            #expect(refused?.key == "POSTERN_SMTP_PORT")
        }
    }

    @Test("the data directory's absolute path has no `.` steps nor doubled slashes; `..` is kept")
    func absoluteDataDirectory() throws {
        let cwd = FileManager.default.currentDirectoryPath
        for (given, absolute) in [
            ("./data", cwd + "/data"), ("data", cwd + "/data"), ("/srv/./postern//data/", "/srv/postern/data"),
            ("/srv/a/../data", "/srv/a/../data"), ("/", "/"),
        ] {
            let parsed = try ConfigurationLoader.parse { ["POSTERN_DATA_DIR": given][$0] }
            #expect(parsed.storage.absoluteDataDirectory == absolute, "\(given)")
        }
    }

    @Test(
        "outbound delivery on refuses to start with POSTERN_SMTP_HOSTNAME localhost or a name not fully qualified",
        arguments: ["direct", "relay"])
    func outboundNeedsQualifiedHostname(mode: String) throws {
        let relay = ["POSTERN_RELAY_URL": "smtp://relay.example.net"]
        for bad in [nil, "localhost", "mail", "mx.localhost", "192.0.2.1", "-mx.example.com", "mx..example.com"] {
            let settings = relay.merging(["POSTERN_OUTBOUND_DELIVERY": mode]) { a, _ in a }
                .merging(bad.map { ["POSTERN_SMTP_HOSTNAME": $0] } ?? [:]) { a, _ in a }
            let error = #expect(throws: ConfigurationError.self, "\(bad ?? "unset")") {
                try ConfigurationLoader.parse { settings[$0] }
            }
            #expect(error?.key == "POSTERN_SMTP_HOSTNAME")
            #expect(error.map { "\($0)" }?.contains("POSTERN_SMTP_HOSTNAME") == true)
        }
        for good in ["mx.example.com", "MX.Example.COM.", "one.queue.test"] {
            let settings = relay.merging(["POSTERN_OUTBOUND_DELIVERY": mode, "POSTERN_SMTP_HOSTNAME": good]) { a, _ in
                a
            }
            #expect(try ConfigurationLoader.parse { settings[$0] }.smtp.hostname == good)
        }
        // Delivery off, the default: localhost stays the local stand-in's name.
        #expect(try ConfigurationLoader.parse { _ in nil }.smtp.hostname == "localhost")
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

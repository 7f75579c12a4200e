import EmbeddedResources
import Foundation
import PasswordHashing
import Testing

@testable import PosternApp

/// `--profile test` / `POSTERN_PROFILE=test`: one switch for a test suite's server, below every explicit setting.
@Suite("Configuration profiles and the documented keys")
struct ConfigurationProfileTests {
    static let shippedFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/postern.env").path

    func load(_ environment: [String: String], overrides: [String: String] = [:]) async throws -> PosternConfiguration {
        // The shipped file as the default file: its values are the ones the test profile must replace.
        try await ConfigurationLoader.load(environment: environment, overrides: overrides, defaultPath: Self.shippedFile)
    }

    @Test("the test profile: free ports, no limits or proofs, no sandbox DNS, quiet, a temporary data directory")
    func testProfile() async throws {
        let c = try await load([:], overrides: ["POSTERN_PROFILE": "test"])
        #expect(c.profile == .test)
        #expect(c.listener.port == 0 && c.smtp.port == 0 && c.sandbox.smtpPort == 0)
        #expect(!c.rateLimits.enabled && !c.mailbox.powRequired)
        #expect(c.agent.baseDifficulty == 0 && !c.agent.dynamicDifficulty)
        #expect(!c.sandbox.mailAuthentication && c.observability.logLevel == "warning")
        #expect(c.passwords.argon2 == Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1))
        #expect(c.storage.removeDataDirectoryAtExit && c.storage.dataDirectory.hasPrefix(NSTemporaryDirectory()))
        let other = try await load(["POSTERN_PROFILE": "TEST"])
        #expect(other.profile == .test && other.storage.dataDirectory != c.storage.dataDirectory)
    }

    @Test("every explicit setting wins over the profile: flags, the environment, a named file, the data directory")
    func explicitWins() async throws {
        let c = try await load(
            ["POSTERN_PROFILE": "test", "POSTERN_RATE_LIMITS": "on", "POSTERN_DATA_DIR": "/srv/kept"],
            overrides: ["POSTERN_PORT": "8181"])
        #expect(c.listener.port == 8181 && c.rateLimits.enabled && c.smtp.port == 0)
        #expect(c.storage.dataDirectory == "/srv/kept" && !c.storage.removeDataDirectoryAtExit)
        let named = try await ConfigurationLoader.load(
            configPath: Self.shippedFile, environment: ["POSTERN_PROFILE": "test"])
        #expect(named.listener.port == 8080 && named.rateLimits.enabled, "a file named by --config is explicit")
    }

    @Test("without a profile the shipped defaults stay; an unknown profile is refused, naming the key")
    func defaultsAndRefusal() async throws {
        let c = try await load([:])
        #expect(c.profile == .standard && c.listener.port == 8080)
        #expect(c.rateLimits.enabled && c.sandbox.mailAuthentication)
        #expect(c.storage.dataDirectory == "./data" && !c.storage.removeDataDirectoryAtExit)
        let error = await #expect(throws: ConfigurationError.self) { try await load(["POSTERN_PROFILE": "fast"]) }
        #expect(error?.key == "POSTERN_PROFILE")
    }

    @Test("serve --help lists every key config/postern.env documents, with its default")
    func helpListsEveryKey() throws {
        let keys = ConfigurationKey.all
        #expect(keys.count > 50)
        let names = Set(keys.map(\.name))
        for required in ["POSTERN_PROFILE", "POSTERN_PORT", "POSTERN_SANDBOX_SMTP_PORT", "POSTERN_SANDBOX_MAIL_AUTH",
            "JWT_ISSUER", "POSTERN_WEBHOOK_RETRY_SECONDS"]
        {
            #expect(names.contains(required), "\(required)")
        }
        #expect(keys.first { $0.name == "POSTERN_PORT" }?.defaultValue == "8080")
        #expect(keys.first { $0.name == "JWT_ISSUER" }?.defaultValue == nil)
        let help = ConfigurationKey.helpText()
        for key in keys { #expect(help.contains("  \(key.name)="), "\(key.name)") }
        #expect(help.contains("POSTERN_PORT=8080 - Listen port."))
        // Each key once: a wrapped comment line that starts with a key's name is prose, not a second key.
        #expect(keys.count == names.count, "\(keys.map(\.name).sorted())")
        #expect(keys.first { $0.name == "POSTERN_SANDBOX_SMTP_PORT" }?.summary.hasPrefix("The Mail.td Pro SMTP sandbox") == true)
        // An abbreviation does not end the sentence.
        #expect(help.contains("POSTERN_KEY_SECRET=(unset) - Required when") && !help.contains("(at least 16 bytes, e.g.\n"))
        // The file the binary carries is the repository's, byte for byte.
        let source = try String(contentsOfFile: Self.shippedFile, encoding: .utf8)
        #expect(EmbeddedResources.configurationFile.text == source)
    }

    @Test("every key the loader reads is documented in config/postern.env")
    func loaderKeysDocumented() throws {
        var read: [String] = []
        _ = try? ConfigurationLoader.parse { key in
            read.append(key)
            return nil
        }
        let documented = Set(ConfigurationKey.all.map(\.name))
        let file = EmbeddedResources.configurationFile.text
        #expect(read.count > 50)
        for key in read {
            // The older names of a setting are read as aliases and named in the comment of the new one.
            #expect(documented.contains(key) || file.contains(key), "\(key) is read but not in config/postern.env")
        }
    }
}

import Foundation
import Logging
import Passkeys
import PosternTestSupport
import Testing
import WebAuthn

@testable import PosternApp
@testable import PosternOperations

/// `postern pro show --email E` lists a Pro user's passkeys, and `postern pro passkeys remove --email E --id ID`
/// removes one for a lost device, on the audit trail (issue 56), as the owners' commands do.
@Suite("Operator commands: Pro users' passkeys")
struct ProPasskeyCommandTests {
    private let logger = Logger(label: "pro-passkey-command-test")

    @Test(
        "pro show lists the passkeys; passkeys remove takes one away, the user's own only",
        arguments: StorageBackend.allCases)
    func showAndRemove(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        for email in ["pro@example.com", "other@example.com"] {
            _ = try await Operations.createProUser(
                configuration: configuration, email: email, password: "pro-password-1", maxAccounts: nil,
                logger: logger)
        }
        _ = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        let show = { (email: String) in
            try await Operations.showProUser(configuration: configuration, email: email, logger: self.logger)
        }
        let before = try #require(try await show("Pro@Example.com"))
        // The `pro list` line, the password, the email (made by the operator: not proven), the second factor and the
        // passkeys.
        #expect(
            before == [before[0], "  password: set", "  email: not proven", "  two-step sign-in: off", "  no passkeys"]
                && before[0].contains("  pro@example.com  accounts 0/"))
        #expect(try await show("nobody@example.com") == nil)
        #expect(try await show("ada@example.com") == nil, "an owner is not a Pro user")

        let database = try Operations.migratedDatabase(configuration, logger: logger)
        let proID = try #require(before[0].split(separator: " ").first.map { String($0) })
        let adaID = try #require(
            try await Operations.showOwner(configuration: configuration, email: "ada@example.com", logger: logger)?
                .first?.split(separator: " ").first.map(String.init))
        let party = RelyingParty(id: "example.com", origins: ["https://example.com"])
        let store = PasskeyStore(database: database)
        let passkey = try await store.add(
            try SoftwareAuthenticator().register(with: party), for: .proUser(proID), userHandle: [1, 2, 3],
            name: "Lost phone", now: 1_800_000_000)
        let owners = try await store.add(
            try SoftwareAuthenticator(seed: 0x6b, credentialID: Array(17...32)).register(with: party),
            for: .owner(adaID), userHandle: [4, 5, 6],
            name: "Ada's key", now: 1_800_000_000)
        database.close()

        let listed = try #require(try await show("pro@example.com"))
        #expect(listed.count == 5)
        #expect(listed[4].hasPrefix("  passkey \(passkey.id)  \"Lost phone\"  EdDSA  created 2027-01-15T08:00:00Z"))
        #expect(listed[4].hasSuffix("  never used  this device only"))

        let remove = { (email: String, id: String) in
            try await Operations.removeProUserPasskey(
                configuration: configuration, email: email, id: id, logger: self.logger)
        }
        #expect(try await remove("other@example.com", passkey.id) == .noPasskey)
        #expect(try await remove("nobody@example.com", passkey.id) == .noHolder)
        #expect(try await remove("ada@example.com", owners.id) == .noHolder, "an owner's email names no Pro user")
        #expect(try await remove("pro@example.com", owners.id) == .noPasskey, "an owner's passkey is not the user's")
        #expect(try await remove("pro@example.com", "no-such-id") == .noPasskey)
        #expect(try await remove("pro@example.com", passkey.id) == .removed)
        #expect(try await show("pro@example.com")?[4] == "  no passkeys")
        #expect(try await remove("pro@example.com", passkey.id) == .noPasskey, "removed once")
        #expect(
            try await Operations.showOwner(configuration: configuration, email: "ada@example.com", logger: logger)?[3]
                .hasPrefix("  passkey \(owners.id)") == true, "the owner's passkey stays")
        let audit = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        let removals = audit.filter { $0.contains("pro passkeys remove") }
        #expect(removals.count == 1 && removals[0].contains(passkey.id) && removals[0].contains("pro@example.com"))
    }
}

import Foundation
import Logging
import Passkeys
import PosternTestSupport
import Testing
import WebAuthn

@testable import PosternApp
@testable import PosternOperations

/// `postern owner show --email E` lists an owner's passkeys, and `postern owner passkeys remove --email E --id ID`
/// removes one for a lost device, on the audit trail (issue 56).
@Suite("Operator commands: owners' passkeys")
struct OwnerPasskeyCommandTests {
    private let logger = Logger(label: "owner-passkey-command-test")

    @Test("owner show lists the passkeys; passkeys remove takes one away, the owner's own only", arguments: StorageBackend.allCases)
    func showAndRemove(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        for email in ["ada@example.com", "bob@example.com"] {
            _ = try await Operations.createOwner(
                configuration: configuration, email: email, password: "owner-password-1", logger: logger)
        }
        let show = { (email: String) in
            try await Operations.showOwner(configuration: configuration, email: email, logger: self.logger)
        }
        let before = try #require(try await show("Ada@Example.com"))
        // The owner, password, email (the operator made them: proven), passkeys and linked identities (the combined
        // `owner show` of issues 54 and 56), the OpenID apps allowed and the two-step sign-in (issue 88).
        #expect(
            before == [
                before[0], "  password: set", "  email: proven", "  no passkeys", "  sign-in identities: 0",
                "  OpenID apps allowed: 0", "  two-step sign-in: off",
            ] && before[0].contains("  ada@example.com  "))
        #expect(try await show("nobody@example.com") == nil)

        let database = try Operations.migratedDatabase(configuration, logger: logger)
        let adaID = try #require(before[0].split(separator: " ").first.map { String($0) })
        let party = RelyingParty(id: "example.com", origins: ["https://example.com"])
        let passkey = try await PasskeyStore(database: database).add(
            try SoftwareAuthenticator().register(with: party), for: .owner(adaID), userHandle: [1, 2, 3],
            name: "Lost phone", now: 1_800_000_000)
        database.close()

        let listed = try #require(try await show("ada@example.com"))
        #expect(listed.count == 7)
        #expect(listed[3].hasPrefix("  passkey \(passkey.id)  \"Lost phone\"  EdDSA  created 2027-01-15T08:00:00Z"))
        #expect(listed[3].hasSuffix("  never used  this device only"))

        let remove = { (email: String, id: String) in
            try await Operations.removeOwnerPasskey(
                configuration: configuration, email: email, id: id, logger: self.logger)
        }
        #expect(try await remove("bob@example.com", passkey.id) == .noPasskey)
        #expect(try await remove("nobody@example.com", passkey.id) == .noHolder)
        #expect(try await remove("ada@example.com", "no-such-id") == .noPasskey)
        #expect(try await remove("ada@example.com", passkey.id) == .removed)
        #expect(try await show("ada@example.com")?[3] == "  no passkeys")
        let audit = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(audit.contains { $0.contains("owner passkeys remove") && $0.contains(passkey.id) })
    }
}

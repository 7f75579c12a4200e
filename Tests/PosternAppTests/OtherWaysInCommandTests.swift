import Foundation
import Logging
import Passkeys
import PosternTestSupport
import SignInProviders
import Testing
import WebAuthn

@testable import PosternApp
@testable import PosternOperations

/// The operator's password reset meets a stolen session's additions (issue 66 item 4): after `owner set-password` and
/// `pro set-password`, every other way in that still stands is listed with when it was added (`otherWaysIn`), and
/// `pro show`, as `owner show`, lists every way in, linked providers included.
@Suite("Operator commands: the ways in a password reset leaves standing")
struct OtherWaysInCommandTests {
    private let logger = Logger(label: "other-ways-in-command-test")

    @Test(
        "set-password's list names each passkey and linked provider with when it was added; pro show lists the providers",
        arguments: StorageBackend.allCases)
    func otherWaysIn(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        _ = try await Operations.createOwner(
            configuration: configuration, email: "ada@example.com", password: "owner-password-1", logger: logger)
        _ = try await Operations.createProUser(
            configuration: configuration, email: "pro@example.com", password: "pro-password-1", maxAccounts: nil,
            logger: logger)
        let ways = { (email: String, owner: Bool) in
            try await Operations.otherWaysIn(
                configuration: configuration, email: email, owner: owner, logger: self.logger)
        }
        #expect(try await ways("ada@example.com", true) == [])
        #expect(try await ways("pro@example.com", false) == [])
        #expect(try await ways("ada@example.com", false) == nil, "an owner is not a Pro user")
        #expect(try await ways("nobody@example.com", true) == nil)

        let adaID = try #require(
            try await Operations.showOwner(configuration: configuration, email: "ada@example.com", logger: logger)?
                .first?.split(separator: " ").first.map(String.init))
        let proID = try #require(
            try await Operations.showProUser(configuration: configuration, email: "pro@example.com", logger: logger)?
                .first?.split(separator: " ").first.map(String.init))
        let database = try Operations.migratedDatabase(configuration, logger: logger)
        let party = RelyingParty(id: "example.com", origins: ["https://example.com"])
        let passkey = try await PasskeyStore(database: database).add(
            try SoftwareAuthenticator().register(with: party), for: .owner(adaID), userHandle: [1, 2, 3],
            name: "Thief's key", now: 1_800_000_000)
        let identities = SignInIdentityStore(database: database, clock: { 1_800_000_100 })
        #expect(
            try await identities.link(
                surface: .owners, issuer: "https://sso.example", subject: "thief", provider: "corp", account: adaID,
                email: nil) == .linked)
        #expect(
            try await identities.link(
                surface: .pro, issuer: "https://sso.example", subject: "pro-sub", provider: "corp", account: proID,
                email: nil) == .linked)
        database.close()

        let owner = try #require(try await ways("ada@example.com", true))
        #expect(owner.count == 2)
        #expect(owner[0].hasPrefix("  passkey \(passkey.id)  \"Thief's key\"  EdDSA  created 2027-01-15T08:00:00Z"))
        #expect(owner[1].contains("corp  issuer https://sso.example  subject thief") && owner[1].contains("linked 2027-01-15T08:01:40Z"))
        let pro = try #require(try await ways("pro@example.com", false))
        #expect(pro.count == 1 && pro[0].contains("subject pro-sub") && pro[0].contains("linked 2027-01-15T08:01:40Z"))
        let shown = try #require(
            try await Operations.showProUser(configuration: configuration, email: "pro@example.com", logger: logger))
        #expect(shown.suffix(2) == ["  sign-in identities: 1", pro[0]])
    }
}

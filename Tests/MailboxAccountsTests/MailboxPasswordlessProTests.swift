import PosternTestSupport
import Storage
import Testing

@testable import MailboxAccounts

/// Pro users a sign-in provider makes (issue 54 items 4 and 5): no password, refused by `POST /api/user/login` and by
/// the web inbox's password check exactly as a wrong password is, and the facts the linking rules read.
@Suite("Mailbox Pro users without a password: made by a provider, refused by the password logins")
struct MailboxPasswordlessProTests {
    @Test(
        "POST /api/user/login answers a password-less Pro user the generic 401 of a wrong password, via the decoy",
        arguments: StorageBackend.allCases)
    func loginRefused(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let made = try await harness.service.accounts.createProUserWithoutPassword(email: " New@Example.com ")
        #expect(made.email == "new@example.com")
        #expect(made.maxAccounts == harness.service.configuration.defaultProMaxAccounts)
        try await harness.service.accounts.createProUser(email: "pw@example.com", password: "propassword")
        let passwordless = await harness.send(
            .POST, "/api/user/login", json: #"{"email":"new@example.com","password":"anything1"}"#)
        let wrong = await harness.send(
            .POST, "/api/user/login", json: #"{"email":"pw@example.com","password":"anything1"}"#)
        // An empty password is no way into an account whose stored hash is empty.
        let empty = await harness.send(.POST, "/api/user/login", json: #"{"email":"new@example.com","password":""}"#)
        for response in [passwordless, wrong, empty] {
            #expect(response.status == 401)
            #expect(response.body == Array(#"{"error":"invalid_credentials"}"#.utf8))
        }
        // The same cost as an unknown email: the check runs against the hasher's decoy, never an empty hash.
        let record = try #require(try await harness.service.store.proUser(email: "new@example.com"))
        #expect(record.passwordHash == "" && record.verifiablePasswordHash == nil)
        #expect(try await harness.service.accounts.signInProUser(email: "new@example.com", password: "anything1") == nil)
        // The user is active: the web inbox's session rests on their token epoch, as a password user's does.
        let standing = try #require(try await harness.service.accounts.proUserStanding(id: made.id))
        #expect(standing.activeEmail == "new@example.com")
        // The operator can give them a password, after which the password login works.
        #expect(try await harness.service.accounts.setProUserPassword(email: "new@example.com", password: "nowapassword"))
        let login = await harness.send(
            .POST, "/api/user/login", json: #"{"email":"new@example.com","password":"nowapassword"}"#)
        #expect(login.status == 200)
        #expect(login.string("user_id") == made.id)
    }

    @Test(
        "link candidates: a provider-made user's email is proven and has no password; the operator's has a password and no proof",
        arguments: StorageBackend.allCases)
    func linkCandidates(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let service = harness.service
        let made = try await service.accounts.createProUserWithoutPassword(email: "made@example.com")
        let operatorMade = try await service.accounts.createProUser(email: "op@example.com", password: "propassword")
        #expect(
            try await service.accounts.proUserLinkCandidate(email: "MADE@example.com")
                == ProUserLinkCandidate(id: made.id, email: "made@example.com", emailVerified: true, hasPassword: false))
        #expect(
            try await service.accounts.proUserLinkCandidate(id: operatorMade.id)
                == ProUserLinkCandidate(
                    id: operatorMade.id, email: "op@example.com", emailVerified: false, hasPassword: true))
        #expect(try await service.accounts.proUserLinkCandidate(email: "nobody@example.com") == nil)
        #expect(try await service.accounts.proUserLinkCandidate(email: "not an address") == nil)
        // Proven only for the address the user still has.
        try await service.accounts.markProUserEmailVerified(id: operatorMade.id, email: "other@example.com")
        #expect(try await service.accounts.proUserLinkCandidate(id: operatorMade.id)?.emailVerified == false)
        try await service.accounts.markProUserEmailVerified(id: operatorMade.id, email: "Op@Example.com")
        #expect(try await service.accounts.proUserLinkCandidate(id: operatorMade.id)?.emailVerified == true)
        // A taken or invalid email makes nobody.
        await #expect(throws: ProUserCreationError.emailTaken) {
            try await service.accounts.createProUserWithoutPassword(email: "op@example.com")
        }
        await #expect(throws: ProUserCreationError.invalidEmail) {
            try await service.accounts.createProUserWithoutPassword(email: "@example.com")
        }
        // The undoing of a sign-up removes only a user without a password.
        #expect(try await service.accounts.removeProUserWithoutPassword(id: operatorMade.id) == false)
        #expect(try await service.accounts.removeProUserWithoutPassword(id: made.id))
        #expect(try await service.accounts.proUserLinkCandidate(id: made.id) == nil)
        #expect(try await service.accounts.proUserLinkCandidate(id: operatorMade.id) != nil)
    }
}

import Audit
import MailSignIn
import PosternTestSupport
import Testing

/// An agent client signing in to a mail door with a token it took by token exchange (RFC 8693) acts for the inbox's
/// owner; the audit line says so (issue 86): the agent is the actor, the owner's trail holds the line, and the details
/// carry the actor chain, so that the owner's own sign-in and their agent's are told apart.
@Suite("Mail credentials: an agent's sign-in with an exchanged token is audited as the agent's, for its owner")
struct MailSignInActingTests {
    static let client = "192.0.2.7"

    @Test(
        "IMAP and POP3 sign-ins with delegated tokens name the agent and its chain; the owner's own token names the owner",
        arguments: StorageBackend.allCases)
    func actingSignIns(_ backend: StorageBackend) async throws {
        let harness = try WebInboxHarness(backend)
        let owners = try await OwnedInboxesFixture(
            database: harness.test.database, base: WebInboxHarness.publicURL, agentDomain: WebInboxHarness.agentDomain)
        let signIn = harness.mailCredentialsTaking(.init(verifier: owners.verifier, principals: owners.principals))
        let (agent, subAgent) = (try await owners.agentClient(), try await owners.agentClient())
        let (own, grant) = try owners.token(resource: owners.jmap)
        let delegated = try await owners.delegatedToken(grant: grant, actors: [agent], resource: owners.jmap)
        let nested = try await owners.delegatedToken(grant: grant, actors: [subAgent, agent], resource: owners.jmap)
        let address = owners.ada.address
        for (door, token) in [(MailSignIn.Door.imap, delegated), (.pop3, nested), (.submission, own)] {
            let outcome = try await signIn.signIn(at: door, username: address, accessToken: token, client: Self.client)
            #expect({ if case .signedIn(let mailbox) = outcome { mailbox.address == address } else { false } }())
        }

        let trail = try await SQLAuditLog(database: harness.test.database).events(since: nil, ownerID: nil, limit: 50)
            .filter { $0.action == .mailboxSignIn }.reversed().map { $0 }
        try #require(trail.count == 3)
        #expect(
            trail[0]
                == AuditEvent(
                    time: trail[0].time, actorKind: .app, actorID: agent, ownerID: owners.owner, action: .mailboxSignIn,
                    target: address, clientAddress: Self.client,
                    details: #"{"door":"imap","credential":"oauth","act":"\#(agent)"}"#))
        #expect(trail[1].actorKind == .app && trail[1].actorID == subAgent && trail[1].ownerID == owners.owner)
        #expect(trail[1].details == #"{"door":"pop3","credential":"oauth","act":"\#(subAgent) \#(agent)"}"#)
        // The owner's own token: the owner signed in, on the operator's trail as before.
        #expect(trail[2].actorKind == .mailbox && trail[2].actorID == owners.owner && trail[2].ownerID == nil)
        #expect(trail[2].details == #"{"door":"submission","credential":"oauth"}"#)
        // Only the agents' lines are the owner's activity.
        let ownersLines = try await SQLAuditLog(database: harness.test.database).events(
            since: nil, ownerID: owners.owner, limit: 50)
        #expect(Set(ownersLines.filter { $0.action == .mailboxSignIn }.map(\.actorID)) == [agent, subAgent])
    }
}

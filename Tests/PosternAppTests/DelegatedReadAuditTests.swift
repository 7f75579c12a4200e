import Audit
import ClientAddress
import Directory
import PosternTestSupport
import Testing

@testable import PosternApp

/// JMAP's and MCP's access-token check writes an agent's first read with a delegated token on the owner's trail
/// (`agent.read`), once per token and door, with the client's address the request came from; a token without `act`
/// writes nothing.
@Suite("Audit: an agent's reads for its owner")
struct DelegatedReadAuditTests {
    /// Answers every token with the grant it was given, its `jti` the token itself.
    struct Grants: AccessGrantAuthenticator {
        let delegation: Delegation?

        func grant(for token: String, resources: Set<AccessGrant.Resource>) async throws -> AccessGrant {
            AccessGrant(
                ownerID: "owner-1", grantID: "grant-1", clientID: "agent", resource: .jmap, permissions: .read,
                defaultInboxID: nil, delegation: delegation, tokenID: token)
        }
    }

    @Test("one line per delegated token and door, none for later requests or for a token without act")
    func firstReads() async throws {
        let test = try StorageBackend.sqlite.makeDatabase()
        let log = SQLAuditLog(database: test.database)
        let clock = TestClock()
        let audit = AuditTrail(log, clock: { clock.now })
        let seen = DelegatedReadAudit.FirstUses()
        let delegated = Grants(delegation: Delegation(ownerID: "owner-1", actorIDs: ["sub-agent", "agent"]))
        let jmap = DelegatedReadAudit(door: "jmap", verifier: delegated, audit: audit, seen: seen)
        let mcp = DelegatedReadAudit(door: "mcp", verifier: delegated, audit: audit, seen: seen)
        let own = DelegatedReadAudit(door: "jmap", verifier: Grants(delegation: nil), audit: audit, seen: seen)

        for _ in 0..<3 { _ = try await jmap.grant(for: "jti-1", resources: [.jmap]) }
        _ = try await own.grant(for: "jti-own", resources: [.jmap])
        _ = try await mcp.grant(for: "jti-1", resources: [.mcp])
        _ = try await jmap.grant(for: "jti-2", resources: [.jmap])
        let events = try await log.events(since: nil, ownerID: "owner-1", limit: 10)
        #expect(events.count == 3)
        #expect(
            events.contains(
                AuditEvent(
                    time: clock.now, actorKind: .app, actorID: "sub-agent", ownerID: "owner-1", action: .agentRead,
                    target: "jti-1", clientAddress: nil, details: #"{"door":"jmap","act":"sub-agent agent"}"#)))
        #expect(Set(events.map { "\($0.target) \($0.details ?? "")" }).count == 3)

        // Past the longest a token lives the entry is gone: the same id would write again.
        clock.advance(seconds: DelegatedReadAudit.FirstUses.keptFor)
        _ = try await jmap.grant(for: "jti-1", resources: [.jmap])
        #expect(try await log.events(since: nil, ownerID: "owner-1", limit: 10).count == 4)
    }

    @Test("the line names the client's address the door's credentials carried, whole (an IPv6 address, not its /64)")
    func clientAddress() async throws {
        let test = try StorageBackend.sqlite.makeDatabase()
        let log = SQLAuditLog(database: test.database)
        let audit = AuditTrail(log, clock: { 1_800_000_000 })
        let delegated = Grants(delegation: Delegation(ownerID: "owner-1", actorIDs: ["agent"]))
        let jmap = DelegatedReadAudit(door: "jmap", verifier: delegated, audit: audit, seen: .init())
        // As JMAP and MCP ask: the bearer chain, with the request context's address in the credentials.
        let chain = BearerAuthenticator(accessTokens: jmap, principals: nil)
        let client = try #require(IPAddress("2001:db8:1:2::7"))
        _ = try await chain.authenticate(Credentials(bearerToken: "jti-6", client: client), resources: [.jmap])
        _ = try await jmap.grant(for: "jti-4", resources: [.jmap], client: IPAddress("192.0.2.7"))
        _ = try await jmap.grant(for: "jti-5", resources: [.jmap])
        let lines = Dictionary(
            uniqueKeysWithValues: try await log.events(since: nil, ownerID: "owner-1", limit: 10).map {
                ($0.target, $0.clientAddress)
            })
        let expected: [String: String?] = ["jti-6": client.description, "jti-4": "192.0.2.7", "jti-5": nil]
        #expect(lines == expected)
        #expect(client.description != ClientAddressKey(client).description)
    }
}

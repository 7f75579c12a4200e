import Directory
import HTTP1
import JSON
import OAuthGrants
import OAuthServer
import PosternTestSupport
import Testing

/// A token minted for an agent client acting for an owner reaches at most what the client was bound to (issue 86):
/// the owner's inboxes the subject reaches among the client's, and the subject's scope within the client's. Requests
/// that would reach past that intersection mint nothing; the ones within it mint a token narrowed to it.
@Suite("Token exchange: an exchanged token is narrowed to the acting client's inboxes and scopes")
struct OAuthTokenExchangeNarrowingTests {
    @Test(
        "requests past the intersection of the subject's and the actor's inboxes and scopes mint nothing; others are narrowed",
        arguments: StorageBackend.allCases)
    func narrowed(_ backend: StorageBackend) async throws {
        let fixture = try await ExchangeFixture(backend)
        let harness = fixture.harness
        let owner = fixture.owner
        let second = try await harness.inboxes.createInbox(username: "second-inbox", ownerID: owner.id).inbox.accountID
        let other = try await harness.owner("other@example.com", inbox: "others-inbox")
        func agent(_ inboxes: [String], _ permissions: MailPermissions = .all, byOperator: Bool = false) async throws
            -> (id: String, secret: String)
        {
            let made = try await ExchangeFixture.client(
                harness, owner: byOperator ? nil : owner.id, inbox: nil, inboxes: inboxes, permissions: permissions)
            #expect(try await fixture.allow(made.id) == .allowed)
            return made
        }
        let reader = try await agent([owner.inbox], .read)
        let onSecond = try await agent([second])
        let onBoth = try await agent([owner.inbox, second])
        let foreign = try await agent([other.inbox], byOperator: true)
        let unbound = try await agent([], byOperator: true)
        let (_, onlyFirst) = try await ExchangeFixture.ownerToken(
            harness, app: fixture.app.id, owner: owner, onlyInbox: owner.inbox)
        let firstOnly = try ExchangeFixture.token(await fixture.exchange(fixture.subject, as: fixture.agent))
        let readOnly = try ExchangeFixture.token(await fixture.exchange(fixture.subject, as: reader))

        var refusals: [OAuthTokenExchangeAdversarialTests.Refusal] = []
        func add(_ name: String, _ code: String, times: Int = 8, _ send: @escaping () async -> HTTPResponse) {
            for i in 0..<times { refusals.append(.init(name: "\(name) \(i)", send: send, code: code)) }
        }
        for scope in ["mail.send", "mail.read mail.send"] {
            add("a read-only actor asks \(scope)", "invalid_scope") {
                await fixture.exchange(fixture.subject, as: reader, [("scope", scope)])
            }
            add("a sub-agent asks \(scope) of a read-only token", "invalid_scope") {
                await fixture.exchange(readOnly, as: onBoth, [("scope", scope)])
            }
        }
        add("an actor bound to another owner's inbox", "invalid_target") { await fixture.exchange(fixture.subject, as: foreign) }
        add("an actor bound to no inbox", "invalid_target") { await fixture.exchange(fixture.subject, as: unbound) }
        add("a subject bound to an inbox the actor was not", "invalid_target") {
            await fixture.exchange(onlyFirst, as: onSecond)
        }
        add("a sub-agent outside its parent's inboxes", "invalid_target") { await fixture.exchange(firstOnly, as: onSecond) }
        add("a JWT bearer grant for an actor bound to no inbox of the owner's", "invalid_target") {
            await fixture.bearer(
                (try? fixture.signer.assertion(client: foreign.id, now: harness.clock.now)) ?? "", as: foreign)
        }

        let before = try await fixture.delegatedCount()
        for refusal in refusals {
            let response = await refusal.send()
            #expect(OAuthHarness.error(response) == refusal.code, "\(refusal.name): \(String(decoding: response.body, as: UTF8.self))")
            #expect(OAuthHarness.json(response)?["access_token"] == nil, "\(refusal.name)")
        }
        #expect(refusals.count == 72)
        #expect(try await fixture.delegatedCount() == before)

        // Within the intersection a token is minted, narrowed to it.
        func reach(_ token: String) async throws -> (MailPermissions?, [String]?) {
            let jti = try #require(ExchangeFixture.claims(token)["jti"]?.stringValue)
            let record = try #require(try await harness.service.grants.record(jti: jti))
            return (record.permissions, record.actorInboxIDs)
        }
        #expect(try ExchangeFixture.claims(readOnly)["scope"]?.stringValue == "mail.read")
        #expect(try await reach(readOnly) == (.read, [owner.inbox]))
        #expect(try await reach(firstOnly) == (.all, [owner.inbox]))
        let both = try ExchangeFixture.token(await fixture.exchange(fixture.subject, as: onBoth))
        #expect(try await reach(both).1.map(Set.init) == [owner.inbox, second])
        let sub = try ExchangeFixture.token(await fixture.exchange(both, as: onSecond))
        #expect(try await reach(sub) == (.all, [second]))
        let boundFirst = try ExchangeFixture.token(await fixture.exchange(onlyFirst, as: onBoth))
        #expect(try await reach(boundFirst) == (.all, [owner.inbox]))
    }
}

import Directory
import HTTP1
import OAuthGrants
import OAuthResource
import OAuthServer
import PosternTestSupport
import Testing

/// Every inbox the owner holds, as a local mailbox: enough for ``OwnerPrincipals`` to hand out a principal.
struct EveryAddressLocal: AccountDirectory {
    func serves(domain: String) -> Bool { true }
    func resolve(_ address: String) async throws -> AddressResolution {
        .local(Recipient(address: address.lowercased(), quota: 1 << 20))
    }
}

@Suite("OAuth consent: every inbox held, or only this one")
struct OAuthConsentReachTests {
    /// The access token the code in `approved`'s Location buys, verified as a resource server verifies it.
    static func grant(_ harness: OAuthHarness, _ approved: HTTPResponse, clientID: String) async throws -> AccessGrant {
        let code = try #require(OAuthHarness.location(approved)["code"], "\(approved.status)")
        let token = await harness.exchange(code, clientID: clientID, verifier: OAuthAuthorizeTests.verifier)
        let access = try #require(OAuthHarness.json(token)?["access_token"]?.stringValue)
        let verifier = OAuthAccessVerifier(
            configuration: OAuthResourceConfiguration(issuer: issuer, baseURL: issuer), keys: harness.keys,
            grants: OAuthGrantStore(database: harness.test.database), cache: nil, clock: { harness.clock.now })
        return try await verifier.grant(for: access, resources: [.jmap, .anyAgent])
    }

    @Test(
        "the page checks the narrowest reach first (only this inbox), and offers every inbox held, later ones too",
        arguments: StorageBackend.allCases)
    func words(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        _ = try await harness.owner()
        let (page, _, _) = try await OAuthAuthorizeTests.consentPage(harness, OAuthAuthorizeTests.query(client.id))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("can read and send from the inbox picked above and no other, unless you choose every"))
        let only = try #require(
            html.firstRange(of: #"name="reach" value="inbox" id="reach-inbox" checked> Only this inbox"#))
        let every = try #require(html.firstRange(of: #"name="reach" value="all" id="reach-all"> Every inbox you hold"#))
        #expect(only.lowerBound < every.lowerBound, "the narrowest choice first")
        let read = await harness.send(
            .GET, "/oauth/authorize?" + OAuthAuthorizeTests.query(client.id, replacing: ["scope": "mail.read"]))
        #expect(String(decoding: read.body, as: UTF8.self).contains("can read the inbox picked above and no other"))
    }

    @Test(
        "only this inbox binds the grant: its token reaches that inbox alone; every inbox reaches all, later too",
        arguments: StorageBackend.allCases)
    func choice(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let owner = try await harness.owner()
        let second = try await harness.inboxes.createInbox(username: "second-inbox", ownerID: owner.id).inbox
        let stranger = try await harness.owner("stranger@example.com", inbox: "strangers")
        let (_, csrf, ticket) = try await OAuthAuthorizeTests.consentPage(harness, OAuthAuthorizeTests.query(client.id))
        func consent(_ fields: [(String, String)]) async -> HTTPResponse {
            await harness.send(
                .POST, "/oauth/consent",
                form: [("csrf_token", csrf), ("request", ticket), ("scope", "mail.read"), ("decision", "approve")]
                    + fields)
        }
        // The choice is checked on the server: missing, unknown, or an inbox the owner does not hold.
        for fields in [
            [("account_id", second.accountID)], [("account_id", second.accountID), ("reach", "everything")],
            [("account_id", stranger.inbox), ("reach", "inbox")],
        ] {
            let refused = await consent(fields)
            #expect(refused.status == .badRequest, "\(fields)")
            #expect(refused.headers["Location"] == nil)
        }
        // Without the CSRF token nothing is granted either.
        let forged = await harness.send(
            .POST, "/oauth/consent",
            form: [
                ("csrf_token", "x"), ("request", ticket), ("scope", "mail.read"), ("account_id", second.accountID),
                ("reach", "inbox"), ("decision", "approve"),
            ])
        #expect(forged.status == .forbidden)

        let principals = OwnerPrincipals(inboxes: harness.inboxes, directory: EveryAddressLocal())
        let bound = try await Self.grant(
            harness, await consent([("account_id", second.accountID), ("reach", "inbox")]), clientID: client.id)
        #expect(try await principals.inboxes(of: bound).map(\.accountID) == [second.accountID])
        #expect(try await principals.principal(bound, accountID: second.accountID).accountID == second.accountID)
        await #expect(throws: AuthenticationRefusal.self) {
            try await principals.principal(bound, accountID: owner.inbox)
        }

        let everything = try await Self.grant(
            harness, await consent([("account_id", second.accountID), ("reach", "all")]), clientID: client.id)
        let later = try await harness.inboxes.createInbox(username: "later-inbox", ownerID: owner.id).inbox
        #expect(
            Set(try await principals.inboxes(of: everything).map(\.accountID))
                == [owner.inbox, second.accountID, later.accountID])
        #expect(try await principals.principal(everything, accountID: owner.inbox).accountID == owner.inbox)
        #expect(try await principals.principal(everything, accountID: later.accountID).accountID == later.accountID)
        #expect(try await principals.inboxes(of: bound).map(\.accountID) == [second.accountID])
    }

    @Test(
        "a new inbox named on the page can be the only one; an inbox resource binds without a choice",
        arguments: StorageBackend.allCases)
    func newInboxAndResource(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let client = try await harness.registerClient()
        let owner = try await harness.owner()
        let (_, csrf, ticket) = try await OAuthAuthorizeTests.consentPage(harness, OAuthAuthorizeTests.query(client.id))
        let principals = OwnerPrincipals(inboxes: harness.inboxes, directory: EveryAddressLocal())
        let created = await harness.send(
            .POST, "/oauth/consent",
            form: [
                ("csrf_token", csrf), ("request", ticket), ("scope", "mail.read"), ("new_inbox", "made-here"),
                ("reach", "inbox"), ("decision", "approve"),
            ])
        let grant = try await Self.grant(harness, created, clientID: client.id)
        #expect(try await principals.inboxes(of: grant).map(\.username) == ["made-here"])

        let query = OAuthAuthorizeTests.query(
            client.id, replacing: ["resource": "urn:atomicmail:agent:" + owner.inbox])
        let page = await harness.send(.GET, "/oauth/authorize?" + query)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("can read and send from this inbox only."))
        #expect(!html.contains("name=\"reach\""))
    }
}

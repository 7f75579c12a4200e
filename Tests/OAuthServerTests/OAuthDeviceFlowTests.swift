import HTTP1
import JSON
import OAuthGrants
import OAuthServer
import Owners
import PosternTestSupport
import Testing

/// The device authorization grant (RFC 8628) through the routes: a client registered for it starts one, the owner
/// enters the code on `/owner/device` and answers the consent page, the device polls the token endpoint.
@Suite("OAuth device flow: device_authorization, /owner/device, the device-code grant")
struct OAuthDeviceFlowTests {
    static let deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

    /// Registers a public client for the device flow (no redirect URIs); its id.
    static func deviceClient(_ harness: OAuthHarness, grantTypes: [String] = [deviceGrant, "refresh_token"])
        async throws -> String
    {
        let types = grantTypes.map { "\"\($0)\"" }.joined(separator: ",")
        let response = await harness.send(
            .POST, "/oauth/register", json: #"{"client_name":"Device CLI","grant_types":[\#(types)]}"#)
        #expect(response.status == .created, "\(String(decoding: response.body, as: UTF8.self))")
        return try #require(OAuthHarness.json(response)?["client_id"]?.stringValue)
    }

    /// Starts a device authorization for `clientID`: the response's body.
    static func start(_ harness: OAuthHarness, _ clientID: String) async throws -> JSONValue {
        let response = await harness.send(
            .POST, "/oauth/device_authorization",
            form: [("client_id", clientID), ("scope", "mail.read"), ("resource", jmapResource)])
        #expect(response.status == .ok, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.headers["Cache-Control"] == "no-store")
        return try #require(OAuthHarness.json(response))
    }

    static func poll(_ harness: OAuthHarness, _ clientID: String, _ deviceCode: String) async -> HTTPResponse {
        await harness.send(
            .POST, "/oauth/token",
            form: [("grant_type", deviceGrant), ("device_code", deviceCode), ("client_id", clientID)])
    }

    /// Enters `typed` on the code form; the response.
    static func enter(_ harness: OAuthHarness, _ typed: String) async throws -> HTTPResponse {
        let form = await harness.send(.GET, "/owner/device")
        let csrf = try #require(OAuthHarness.hidden("csrf_token", in: form))
        return await harness.send(.POST, "/owner/device", form: [("csrf_token", csrf), ("user_code", typed)])
    }

    /// Answers the consent page `page` with `decision` (reading mail of `inbox` only).
    static func answer(_ harness: OAuthHarness, _ page: HTTPResponse, inbox: String, decision: String) async throws
        -> HTTPResponse
    {
        let csrf = try #require(OAuthHarness.hidden("csrf_token", in: page))
        let ticket = try #require(OAuthHarness.hidden("request", in: page))
        return await harness.send(
            .POST, "/owner/device/consent",
            form: [
                ("csrf_token", csrf), ("request", ticket), ("scope", "mail.read"), ("account_id", inbox),
                ("reach", "inbox"), ("decision", decision),
            ])
    }

    @Test(
        "pending, slow_down (+5 s), the owner approves on /owner/device, tokens once, then invalid_grant",
        arguments: StorageBackend.allCases)
    func approved(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let clientID = try await Self.deviceClient(harness)
        let owner = try await harness.owner()
        let started = try await Self.start(harness, clientID)
        let userCode = try #require(started["user_code"]?.stringValue)
        let deviceCode = try #require(started["device_code"]?.stringValue)
        #expect(userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil)
        #expect(started["verification_uri"]?.stringValue == issuer + "/owner/device")
        #expect(started["verification_uri_complete"]?.stringValue == issuer + "/owner/device?user_code=" + userCode)
        #expect(started["expires_in"]?.intValue == 600 && started["interval"]?.intValue == 5)

        #expect(OAuthHarness.error(await Self.poll(harness, clientID, deviceCode)) == "authorization_pending")
        harness.clock.advance(2)
        let fast = await Self.poll(harness, clientID, deviceCode)
        #expect(OAuthHarness.error(fast) == "slow_down")
        #expect(String(decoding: fast.body, as: UTF8.self).contains("now 10 s"))
        harness.clock.advance(6)
        #expect(OAuthHarness.error(await Self.poll(harness, clientID, deviceCode)) == "slow_down", "6 s < 10 s")

        // Signed out, the page sends the browser to sign in and back with the code.
        let signedOut = await harness.send(.GET, "/owner/device?user_code=" + userCode.lowercased())
        #expect(signedOut.status == .seeOther)
        #expect(signedOut.headers["Location"] == OwnerService.signInPath(next: "/owner/device?user_code=" + userCode))
        try await harness.signIn()
        let filled = await harness.send(.GET, "/owner/device?user_code=" + userCode)
        #expect(String(decoding: filled.body, as: UTF8.self).contains(#"name="user_code" value="\#(userCode)""#))
        // Typed in lower case without its dash: the consent page, showing the code and no redirect host.
        let consent = try await Self.enter(harness, userCode.lowercased().replacingOccurrences(of: "-", with: " "))
        #expect(consent.status == .ok)
        let html = String(decoding: consent.body, as: UTF8.self)
        #expect(html.contains(#"action="/owner/device/consent""#) && html.contains("Device CLI"))
        #expect(html.contains(#"<strong id="user-code">\#(userCode)</strong>"#) && !html.contains("redirect-host"))
        let done = try await Self.answer(harness, consent, inbox: owner.inbox, decision: "approve")
        #expect(done.status == .ok)
        #expect(String(decoding: done.body, as: UTF8.self).contains("is signed in"))
        // Answered: the same ticket again is refused.
        #expect(try await Self.answer(harness, consent, inbox: owner.inbox, decision: "deny").status == .badRequest)

        harness.clock.advance(1)
        let tokens = await Self.poll(harness, clientID, deviceCode)
        #expect(tokens.status == .ok, "approved: answered at once, however soon")
        let body = try #require(OAuthHarness.json(tokens))
        #expect(body["scope"]?.stringValue == "mail.read" && body["refresh_token"]?.stringValue != nil)
        #expect(body["access_token"]?.stringValue != nil)
        let again = await Self.poll(harness, clientID, deviceCode)
        #expect(OAuthHarness.error(again) == "invalid_grant")

        // One grant model: the owner's connected apps list it, bound to the inbox, and its refresh token rotates.
        let apps = try await harness.service.grants.connectedApps(ownerID: owner.id, now: harness.clock.now)
        #expect(apps.map(\.clientID) == [clientID] && apps.first?.boundAccountID == owner.inbox)
        let refreshed = await harness.refresh(try OAuthHarness.refreshToken(tokens), clientID: clientID)
        #expect(refreshed.status == .ok)
        let events = try await harness.auditEvents()
        #expect(events.contains { $0.action == .appApproved && $0.details?.contains("device_code") == true })
    }

    @Test(
        "denied: access_denied; expired: expired_token; another client's code: invalid_grant",
        arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let clientID = try await Self.deviceClient(harness)
        let other = try await Self.deviceClient(harness)
        let owner = try await harness.owner()
        try await harness.signIn()
        let denied = try await Self.start(harness, clientID)
        let deniedCode = try #require(denied["device_code"]?.stringValue)
        let consent = try await Self.enter(harness, try #require(denied["user_code"]?.stringValue))
        let answer = try await Self.answer(harness, consent, inbox: owner.inbox, decision: "deny")
        #expect(String(decoding: answer.body, as: UTF8.self).contains("You denied the request"))
        #expect(OAuthHarness.error(await Self.poll(harness, clientID, deniedCode)) == "access_denied")
        #expect(OAuthHarness.error(await Self.poll(harness, other, deniedCode)) == "invalid_grant")
        #expect(OAuthHarness.error(await Self.poll(harness, clientID, "not-a-device-code")) == "invalid_grant")

        let late = try await Self.start(harness, clientID)
        harness.clock.advance(600)
        let lateCode = try #require(late["device_code"]?.stringValue)
        #expect(OAuthHarness.error(await Self.poll(harness, clientID, lateCode)) == "expired_token")
        let expired = try await Self.enter(harness, try #require(late["user_code"]?.stringValue))
        #expect(expired.status == .badRequest, "an expired code is no longer on offer")

        // A client that did not register the grant type, and a code-flow client, may not start one.
        let codeClient = try await harness.registerClient()
        let refused = await harness.send(
            .POST, "/oauth/device_authorization", form: [("client_id", codeClient.id), ("resource", jmapResource)])
        #expect(OAuthHarness.error(refused) == "unauthorized_client")
        let noResource = await harness.send(.POST, "/oauth/device_authorization", form: [("client_id", clientID)])
        #expect(OAuthHarness.error(noResource) == "invalid_request")
        let wide = await harness.send(
            .POST, "/oauth/device_authorization",
            form: [("client_id", clientID), ("resource", jmapResource), ("scope", "mail.admin")])
        #expect(OAuthHarness.error(wide) == "invalid_scope")
    }

    @Test(
        "five wrong codes a session, then every entry is refused unread, the right one too",
        arguments: StorageBackend.allCases)
    func guessing(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let clientID = try await Self.deviceClient(harness)
        _ = try await harness.owner()
        try await harness.signIn()
        let userCode = try #require(try await Self.start(harness, clientID)["user_code"]?.stringValue)
        let malformed = try await Self.enter(harness, "BCDF-GHJ")
        #expect(malformed.status == .badRequest, "a malformed code spends nothing")
        for guess in ["BBBB-BBBB", "CCCC-CCCC", "DDDD-DDDD", "FFFF-FFFF", "GGGG-GGGG"] where guess != userCode {
            let wrong = try await Self.enter(harness, guess)
            #expect(wrong.status == .badRequest)
            #expect(String(decoding: wrong.body, as: UTF8.self).contains("No device is waiting for that code"))
        }
        #expect(try await Self.enter(harness, "HHHH-HHHH").status == .tooManyRequests)
        #expect(try await Self.enter(harness, userCode).status == .tooManyRequests)
    }

    @Test("right codes give their entry back: six right entries in a row are all answered")
    func rightCodesRefunded() async throws {
        let harness = try OAuthHarness(.sqlite)
        let clientID = try await Self.deviceClient(harness)
        _ = try await harness.owner()
        try await harness.signIn()
        let userCode = try #require(try await Self.start(harness, clientID)["user_code"]?.stringValue)
        for _ in 0..<6 { #expect(try await Self.enter(harness, userCode).status == .ok) }
    }

    @Test(
        "the purge drops device codes a day past expiry with a grant approved and never redeemed; a redeemed one stays",
        arguments: StorageBackend.allCases)
    func purge(_ backend: StorageBackend) async throws {
        let harness = try OAuthHarness(backend)
        let clientID = try await Self.deviceClient(harness)
        let owner = try await harness.owner()
        try await harness.signIn()
        var codes: [String] = []
        for _ in 0..<2 {
            let started = try await Self.start(harness, clientID)
            codes.append(try #require(started["device_code"]?.stringValue))
            let page = try await Self.enter(harness, try #require(started["user_code"]?.stringValue))
            #expect(try await Self.answer(harness, page, inbox: owner.inbox, decision: "approve").status == .ok)
        }
        #expect(await Self.poll(harness, clientID, codes[0]).status == .ok)
        let now = harness.clock.now + 600 + 86_401
        try await harness.test.database.write { try OAuthPurge.run($0, now: now) }
        let left = try await harness.test.database.read { connection in
            (
                try connection.query("SELECT COUNT(*) AS n FROM oauth_device_codes").first?.int("n"),
                try connection.query("SELECT COUNT(*) AS n FROM oauth_grants").first?.int("n")
            )
        }
        #expect(left.0 == 0 && left.1 == 1, "the redeemed code's grant lives on, the other is gone")
    }

    @Test("off: no endpoint, no page, no metadata, no grant type in registrations")
    func off() async throws {
        let harness = try OAuthHarness(.sqlite) { $0.deviceAuthorization = false }
        let metadata = try #require(
            OAuthHarness.json(await harness.send(.GET, "/.well-known/oauth-authorization-server")))
        #expect(metadata["device_authorization_endpoint"] == nil)
        #expect(metadata["grant_types_supported"]?.arrayValue?.contains(.string(Self.deviceGrant)) == false)
        #expect(
            await harness.send(.POST, "/oauth/device_authorization", form: [("client_id", "x")]).status == .notFound)
        #expect(await harness.send(.GET, "/owner/device").status == .notFound)
        let registration = await harness.send(
            .POST, "/oauth/register", json: #"{"grant_types":["\#(Self.deviceGrant)"]}"#)
        #expect(OAuthHarness.error(registration) == "invalid_client_metadata")
        let on = try OAuthHarness(.sqlite)
        let listed = try #require(OAuthHarness.json(await on.send(.GET, "/.well-known/oauth-authorization-server")))
        #expect(listed["device_authorization_endpoint"]?.stringValue == issuer + "/oauth/device_authorization")
        #expect(listed["grant_types_supported"]?.arrayValue?.contains(.string(Self.deviceGrant)) == true)
    }
}

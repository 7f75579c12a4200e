import Audit
import AuthCrypto
import HTTP1
import JSON
import Passkeys
import PosternTestSupport
import Storage
import Testing
import WebAuthn
import WebInbox

/// Pro users' passkeys in the web inbox (issue 56), with the test kit's Ed25519 software authenticator: a passkey
/// registered from "Sign-in methods" in the Pro dashboard signs its user in at `/inbox/sign-in` with nothing typed;
/// every refusal is the sign-in page (401, one message) with no session; passkeys are listed, renamed and removed by
/// their user only; everything lands on the audit trail.
@Suite("Web inbox: Pro users' passkeys")
struct WebInboxPasskeyTests {
    static let party = RelyingParty(id: "example.com", origins: ["https://example.com"])
    static let refusedWords = "That passkey could not be used"

    static func harness(_ backend: StorageBackend) throws -> WebInboxHarness {
        try WebInboxHarness(backend, relyingParty: party)
    }

    /// The challenge of an options answer.
    static func challenge(_ response: HTTPResponse) throws -> [UInt8] {
        #expect(response.status == .ok)
        return try #require(JSONValue.parse(response.body)["challenge"]?.stringValue.flatMap(Base64URL.decode))
    }

    static func registration(_ authenticator: SoftwareAuthenticator, challenge: [UInt8], flags: UInt8 = 0x45)
        -> String
    {
        let clientData = SoftwareAuthenticator.clientData(
            type: "webauthn.create", challenge: challenge, origin: "https://example.com")
        let attestation = SoftwareAuthenticator.attestationObject(
            authenticator.authenticatorData(flags: flags, signCount: 0, attested: true))
        let id = Base64URL.encode(authenticator.credentialID)
        return #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(Base64URL.encode(clientData))","attestationObject":"\#(Base64URL.encode(attestation))"}}"#
    }

    static func assertion(
        _ authenticator: SoftwareAuthenticator, challenge: [UInt8], signCount: UInt32 = 1,
        origin: String = "https://example.com", flags: UInt8 = 0x05
    ) throws -> String {
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: challenge, origin: origin)
        let data = authenticator.authenticatorData(flags: flags, signCount: signCount)
        let signature = try authenticator.sign(authData: data, clientData: clientData)
        let id = Base64URL.encode(authenticator.credentialID)
        return #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(Base64URL.encode(clientData))","authenticatorData":"\#(Base64URL.encode(data))","signature":"\#(Base64URL.encode(signature))"}}"#
    }

    /// A browser signed in as the Pro user `email` with their password.
    static func proBrowser(_ harness: WebInboxHarness, _ email: String) async throws -> Browser {
        let browser = harness.browser()
        let signedIn = try await browser.signIn(["kind": "pro", "email": email, "password": "pro-password"])
        try #require(signedIn.status == .seeOther)
        return browser
    }

    /// Registers `authenticator`'s passkey as `name` from the dashboard of `browser`; the dashboard after.
    @discardableResult
    static func register(
        _ browser: Browser, _ authenticator: SoftwareAuthenticator, name: String = "Laptop", flags: UInt8 = 0x45
    ) async throws -> HTTPResponse {
        let csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/dashboard")))
        let challenge = try challenge(await browser.send(.POST, "/inbox/passkeys/options", form: ["csrf_token": csrf]))
        let added = await browser.send(
            .POST, "/inbox/passkeys",
            form: [
                "csrf_token": csrf, "name": name,
                "credential": registration(authenticator, challenge: challenge, flags: flags),
            ])
        #expect(added.status == .seeOther && added.headers["Location"] == "/inbox/dashboard")
        return await browser.send(.GET, "/inbox/dashboard")
    }

    /// Signs a fresh browser in with `credential(challenge)` at `/inbox/sign-in/passkey`: the browser and the answer.
    static func passkeySignIn(
        _ harness: WebInboxHarness, _ credential: ([UInt8]) throws -> String
    ) async throws -> (Browser, HTTPResponse) {
        let browser = harness.browser()
        let page = await browser.send(.GET, "/inbox/sign-in")
        let csrf = try #require(Browser.csrf(in: page))
        let challenge = try challenge(
            await browser.send(.POST, "/inbox/sign-in/passkey/options", form: ["csrf_token": csrf]))
        let answer = await browser.send(
            .POST, "/inbox/sign-in/passkey", form: ["csrf_token": csrf, "credential": try credential(challenge)])
        return (browser, answer)
    }

    /// The generic refusal, with no session: `/inbox` still sends the browser to sign in.
    static func expectRefused(
        _ browser: Browser, _ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        #expect(response.status == .unauthorized, sourceLocation: sourceLocation)
        #expect(response.text.contains(refusedWords), sourceLocation: sourceLocation)
        #expect(
            !response.headers.values("Set-Cookie").contains { $0.hasPrefix(WebInboxService.sessionCookie + "=") },
            sourceLocation: sourceLocation)
        #expect(await browser.send(.GET, "/inbox").headers["Location"] == "/inbox/sign-in", sourceLocation: sourceLocation)
    }

    static func events(_ harness: WebInboxHarness) async throws -> [AuditEvent] {
        try await SQLAuditLog(database: harness.test.database).events(since: nil, ownerID: nil, limit: 1000).reversed()
    }

    @Test("a passkey registered from the Pro dashboard signs its user in with nothing typed", arguments: StorageBackend.allCases)
    func registerAndSignIn(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        let pro = try await harness.proLogin("pro@example.com")
        try await harness.account("one@pro.localhost", bearer: pro.jwt)
        let authenticator = try SoftwareAuthenticator()

        let signInPage = await harness.browser().send(.GET, "/inbox/sign-in")
        #expect(signInPage.text.contains(#"id="passkey-sign-in""#))
        #expect(signInPage.text.contains("needs JavaScript"))
        #expect(signInPage.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
        let script = await harness.browser().send(.GET, "/inbox/assets/passkeys.js")
        #expect(script.status == .ok && script.headers["Content-Type"]?.hasPrefix("text/javascript") == true)

        let browser = try await Self.proBrowser(harness, "pro@example.com")
        let empty = await browser.send(.GET, "/inbox/dashboard")
        #expect(empty.text.contains(#"id="sign-in-methods""#) && empty.text.contains(#"id="no-passkeys""#))
        #expect(empty.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
        // Backup eligible and backed up: a synced passkey.
        let dashboard = try await Self.register(browser, authenticator, name: "Pro's <phone>", flags: 0x5d)
        #expect(dashboard.text.contains("Passkey added."))
        #expect(dashboard.text.contains("Pro&#39;s &lt;phone&gt;") || dashboard.text.contains("Pro's &lt;phone&gt;"))
        #expect(dashboard.text.contains("synced passkey"))
        let stored = try await PasskeyStore(database: harness.test.database).credentials(of: .proUser(pro.id))
        #expect(stored.count == 1 && stored.first?.lastUsedAt == nil)

        let (signedIn, answer) = try await Self.passkeySignIn(harness) {
            try Self.assertion(authenticator, challenge: $0)
        }
        #expect(answer.status == .seeOther && answer.headers["Location"] == "/inbox")
        let home = await signedIn.send(.GET, "/inbox")
        #expect(home.status == .ok)
        #expect(home.text.contains("one<wbr>@pro.<wbr>localhost"))
        #expect(await signedIn.send(.GET, "/inbox/m/one%40pro.localhost").status == .ok)
        let after = try await PasskeyStore(database: harness.test.database).credentials(of: .proUser(pro.id))
        #expect(after.first?.lastUsedAt != nil && after.first?.signCount == 1)

        let events = try await Self.events(harness)
        #expect(events.contains { $0.action == .passkeyAdded && $0.actorKind == .pro && $0.actorID == pro.id })
        #expect(
            events.contains {
                $0.action == .proSignIn && $0.actorID == pro.id && $0.details?.contains("passkey") == true
            })
    }

    @Test("every bad answer gets the one refusal and no session, and is audited", arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        _ = try await harness.proLogin("pro@example.com")
        let authenticator = try SoftwareAuthenticator()
        try await Self.register(try await Self.proBrowser(harness, "pro@example.com"), authenticator)

        // Another origin (a look-alike page).
        let (phished, wrongOrigin) = try await Self.passkeySignIn(harness) {
            try Self.assertion(authenticator, challenge: $0, origin: "https://examp1e.com")
        }
        await Self.expectRefused(phished, wrongOrigin)
        // User verification missing.
        let (unverified, noUV) = try await Self.passkeySignIn(harness) {
            try Self.assertion(authenticator, challenge: $0, flags: 0x01)
        }
        await Self.expectRefused(unverified, noUV)
        // A credential nobody registered.
        let stranger = try SoftwareAuthenticator(seed: 0x11, credentialID: Array(repeating: 7, count: 16))
        let (unknown, unknownAnswer) = try await Self.passkeySignIn(harness) {
            try Self.assertion(stranger, challenge: $0)
        }
        await Self.expectRefused(unknown, unknownAnswer)
        // A challenge the server never issued.
        let (forged, forgedAnswer) = try await Self.passkeySignIn(harness) { _ in
            try Self.assertion(authenticator, challenge: Array(repeating: 1, count: 32))
        }
        await Self.expectRefused(forged, forgedAnswer)
        // Not a credential at all.
        let (garbled, garbledAnswer) = try await Self.passkeySignIn(harness) { _ in "{\"rawId\":" }
        await Self.expectRefused(garbled, garbledAnswer)

        let reasons = try await Self.events(harness).filter { $0.action == .proSignInFailed }.compactMap(\.details)
        for reason in ["verification.origin", "verification.user_verified", "unknown_credential", "challenge", "malformed"] {
            #expect(reasons.contains { $0.contains(reason) }, "no pro.signin_failed with \(reason)")
        }
        // The passkey itself still works.
        let (_, good) = try await Self.passkeySignIn(harness) { try Self.assertion(authenticator, challenge: $0) }
        #expect(good.status == .seeOther)
    }

    @Test("a Pro user renames and removes their own passkeys only", arguments: StorageBackend.allCases)
    func renameAndRemove(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        let pro = try await harness.proLogin("pro@example.com")
        _ = try await harness.proLogin("rival@example.com")
        let authenticator = try SoftwareAuthenticator()
        let owner = try await Self.proBrowser(harness, "pro@example.com")
        try await Self.register(owner, authenticator)
        let store = PasskeyStore(database: harness.test.database)
        let passkey = try #require(try await store.credentials(of: .proUser(pro.id)).first)

        let rival = try await Self.proBrowser(harness, "rival@example.com")
        let rivalCSRF = try #require(Browser.csrf(in: await rival.send(.GET, "/inbox/dashboard")))
        #expect(!(await rival.send(.GET, "/inbox/dashboard")).text.contains(passkey.id))
        _ = await rival.send(.POST, "/inbox/passkeys/\(passkey.id)/remove", form: ["csrf_token": rivalCSRF])
        #expect((await rival.send(.GET, "/inbox/dashboard")).text.contains("There is no such passkey."))
        _ = await rival.send(
            .POST, "/inbox/passkeys/\(passkey.id)/rename", form: ["csrf_token": rivalCSRF, "name": "Mine now"])
        #expect(try await store.credentials(of: .proUser(pro.id)).map(\.name) == ["Laptop"])
        // Signed out: the dashboard's routes are a 404, as for anyone but a Pro user.
        let anonymous = harness.browser()
        #expect(await anonymous.send(.POST, "/inbox/passkeys/\(passkey.id)/remove", form: [:]).status == .notFound)

        let csrf = try #require(Browser.csrf(in: await owner.send(.GET, "/inbox/dashboard")))
        _ = await owner.send(.POST, "/inbox/passkeys/\(passkey.id)/rename", form: ["csrf_token": csrf, "name": "\u{1}"])
        #expect((await owner.send(.GET, "/inbox/dashboard")).text.contains("without control characters"))
        _ = await owner.send(.POST, "/inbox/passkeys/\(passkey.id)/rename", form: ["csrf_token": csrf, "name": "Work key"])
        #expect((await owner.send(.GET, "/inbox/dashboard")).text.contains("Work key"))
        _ = await owner.send(.POST, "/inbox/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect((await owner.send(.GET, "/inbox/dashboard")).text.contains("Passkey removed."))
        #expect(try await store.credentials(of: .proUser(pro.id)).isEmpty)
        let (gone, refused) = try await Self.passkeySignIn(harness) { try Self.assertion(authenticator, challenge: $0) }
        await Self.expectRefused(gone, refused)

        let actions = try await Self.events(harness).filter { $0.actorID == pro.id }.map(\.action)
        #expect(actions.contains(.passkeyRenamed) && actions.contains(.passkeyRemoved))
    }

    @Test(
        "passkey sign-ins are slowed as passwords are, and a counter that goes back is refused and audited",
        arguments: StorageBackend.allCases)
    func throttleAndClone(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        let pro = try await harness.proLogin("pro@example.com")
        let authenticator = try SoftwareAuthenticator()
        try await Self.register(try await Self.proBrowser(harness, "pro@example.com"), authenticator)

        for _ in 0..<6 {
            let (browser, answer) = try await Self.passkeySignIn(harness) {
                try Self.assertion(authenticator, challenge: $0, origin: "https://examp1e.com")
            }
            await Self.expectRefused(browser, answer)
        }
        let (slowed, blocked) = try await Self.passkeySignIn(harness) { try Self.assertion(authenticator, challenge: $0) }
        #expect(blocked.status == .tooManyRequests && blocked.headers["Retry-After"] != nil)
        #expect(blocked.text.contains(Self.refusedWords))
        #expect(await slowed.send(.GET, "/inbox").headers["Location"] == "/inbox/sign-in")
        harness.clock.advance(3)
        let (_, waited) = try await Self.passkeySignIn(harness) {
            try Self.assertion(authenticator, challenge: $0, signCount: 5)
        }
        #expect(waited.status == .seeOther)

        // The counter went from 5 back to 3: possibly cloned, refused now and from then on.
        let (cloned, rolledBack) = try await Self.passkeySignIn(harness) {
            try Self.assertion(authenticator, challenge: $0, signCount: 3)
        }
        await Self.expectRefused(cloned, rolledBack)
        let (still, later) = try await Self.passkeySignIn(harness) {
            try Self.assertion(authenticator, challenge: $0, signCount: 9)
        }
        await Self.expectRefused(still, later)
        let events = try await Self.events(harness)
        #expect(events.contains { $0.action == .passkeyPossiblyCloned && $0.actorID == pro.id })
        #expect(events.contains { $0.action == .proSignInFailed && $0.details?.contains("slowed") == true })
        let dashboard = await (try await Self.proBrowser(harness, "pro@example.com")).send(.GET, "/inbox/dashboard")
        #expect(dashboard.text.contains("possibly cloned"))
    }

    @Test(
        "a Pro user's wrong password at removal counts as a failed sign-in: past the backoff, not even the right one",
        arguments: StorageBackend.allCases)
    func passwordRemovalBackoff(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        let pro = try await harness.proLogin("pro@example.com")
        let browser = try await Self.proBrowser(harness, "pro@example.com")
        _ = try await Self.register(browser, try SoftwareAuthenticator())
        let csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/dashboard")))
        var slowed = false
        for _ in 0..<8 where !slowed {
            _ = await browser.send(.POST, "/inbox/password/remove", form: ["csrf_token": csrf, "password": "not-mine"])
            slowed = (await browser.send(.GET, "/inbox/dashboard")).text.contains("Too many wrong passwords")
        }
        #expect(slowed)
        _ = await browser.send(.POST, "/inbox/password/remove", form: ["csrf_token": csrf, "password": "pro-password"])
        #expect((await browser.send(.GET, "/inbox/dashboard")).text.contains("Too many wrong passwords"))
        #expect(try await harness.mailbox.accounts.signInProUser(email: "pro@example.com", password: "pro-password") == pro.id)
        // The same count slows the password sign-in: the removal form is no way around it.
        let signIn = try await harness.browser().signIn(
            ["kind": "pro", "email": "pro@example.com", "password": "pro-password"])
        #expect(signIn.status == .tooManyRequests)
    }

    @Test(
        "a Pro user holding a passkey may remove their password; the last way in is never removed",
        arguments: StorageBackend.allCases)
    func passwordRemoval(_ backend: StorageBackend) async throws {
        let harness = try Self.harness(backend)
        let pro = try await harness.proLogin("pro@example.com")
        let apiToken = try await harness.apiToken(bearer: pro.jwt)
        let browser = try await Self.proBrowser(harness, "pro@example.com")
        let csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/dashboard")))
        func remove(_ password: String, csrf: String = csrf) async -> HTTPResponse {
            await browser.send(.POST, "/inbox/password/remove", form: ["csrf_token": csrf, "password": password])
        }

        // No passkey yet: the password is the only way in, no form offers its removal, and a POST is refused.
        #expect(!(await browser.send(.GET, "/inbox/dashboard")).text.contains(#"id="remove-password""#))
        #expect(await remove("pro-password").headers["Location"] == "/inbox/dashboard")
        #expect((await browser.send(.GET, "/inbox/dashboard")).text.contains("That is your only way to sign in"))
        #expect(try await harness.mailbox.accounts.signInProUser(email: "pro@example.com", password: "pro-password") == pro.id)

        let authenticator = try SoftwareAuthenticator()
        let registered = try await Self.register(browser, authenticator)
        #expect(registered.text.contains(#"id="remove-password""#) && registered.text.contains("Password: set"))
        // Without the CSRF token, or with another password, nothing is removed.
        #expect(await remove("pro-password", csrf: "forged").status == .forbidden)
        _ = await remove("not-my-password")
        #expect((await browser.send(.GET, "/inbox/dashboard")).text.contains("That is not your password"))
        #expect(try await harness.mailbox.accounts.signInProUser(email: "pro@example.com", password: "pro-password") == pro.id)

        #expect(await remove("pro-password").headers["Location"] == "/inbox/dashboard")
        let removed = await browser.send(.GET, "/inbox/dashboard")
        #expect(removed.status == .ok && removed.text.contains("Password removed"))
        #expect(removed.text.contains(#"<span id="method-password">Password: none</span>"#))
        #expect(!removed.text.contains(#"id="remove-password""#))
        let events = try await Self.events(harness)
        #expect(events.contains { $0.action == .proPasswordRemoved && $0.actorKind == .pro && $0.actorID == pro.id })

        // The session that removed it, the Pro JWT and the tm_pro_ token go on; the password opens nothing now:
        // POST /api/user/login answers as it does for an email nobody has.
        #expect((await browser.send(.GET, "/inbox")).status == .ok)
        for bearer in [pro.jwt, apiToken] {
            let accounts = await harness.browser().send(
                .GET, "/api/user/accounts", headers: [("Authorization", "Bearer " + bearer)])
            #expect(accounts.status == .ok)
        }
        let login = await harness.browser().send(
            .POST, "/api/user/login", json: #"{"email":"pro@example.com","password":"pro-password"}"#)
        let nobody = await harness.browser().send(
            .POST, "/api/user/login", json: #"{"email":"nobody@example.com","password":"pro-password"}"#)
        #expect(login.status == .unauthorized && login.body == nobody.body)
        let passwordSignIn = try await harness.browser().signIn(
            ["kind": "pro", "email": "pro@example.com", "password": "pro-password"])
        #expect(passwordSignIn.status == .unauthorized)

        // The last passkey that signs in stays; a second removal of the password has nothing to remove.
        let passkey = try #require(
            try await PasskeyStore(database: harness.test.database).credentials(of: .proUser(pro.id)).first)
        _ = await browser.send(.POST, "/inbox/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect((await browser.send(.GET, "/inbox/dashboard")).text.contains("That is your only way to sign in"))
        #expect(try await PasskeyStore(database: harness.test.database).credentials(of: .proUser(pro.id)).count == 1)
        _ = await remove("pro-password")
        #expect((await browser.send(.GET, "/inbox/dashboard")).text.contains("That is not your password"))

        // The passkey alone signs them in.
        let (signedIn, answer) = try await Self.passkeySignIn(harness) {
            try Self.assertion(authenticator, challenge: $0)
        }
        #expect(answer.status == .seeOther && answer.headers["Location"] == "/inbox")
        #expect((await signedIn.send(.GET, "/inbox/dashboard")).text.contains("Password: none"))

        // The operator gives a password back.
        #expect(try await harness.mailbox.accounts.setProUserPassword(email: "pro@example.com", password: "new-pro-password"))
        let back = try await harness.mailbox.accounts.signInProUser(email: "pro@example.com", password: "new-pro-password")
        #expect(back == pro.id)
    }
}

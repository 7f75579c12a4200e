import Audit
import EmbeddedResources
import AuthCrypto
import BrowserPages
import ComputePool
import Foundation
import HTTP1
import JSON
import Owners
import Passkeys
import ServerKit
import PosternTestSupport
import SecondFactors
import Storage
import Testing
import WebAuthn

/// The owners' passkey ceremonies over HTTP (issue 56), with the test kit's Ed25519 software authenticator: a passkey
/// registered from `/owner` signs its owner in at `/owner/sign-in` with no email typed; every refusal is the same page
/// (401, one message) with no session; a counter that went back is refused, marked and audited; passkeys are listed,
/// renamed and removed by their owner only; challenges are single-use, five minutes long and their holder's.
@Suite("Owners: passkey ceremonies over HTTP")
struct OwnerPasskeyTests {
    static let party = RelyingParty(id: "example.com", origins: ["https://example.com"])
    static let refusedWords = "That passkey could not be used"

    /// A harness with passkeys, `/owner` routed, and owners Ada and Bob (passwords "correct horse").
    static func harness(_ backend: StorageBackend) async throws -> OwnersHarness {
        let harness = try OwnersHarness(backend, relyingParty: party)
        harness.routeInboxPages()
        _ = try await harness.service.owners.create(email: "ada@example.com", password: "correct horse")
        _ = try await harness.service.owners.create(email: "bob@example.com", password: "correct horse")
        return harness
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// The challenge of an options answer.
    static func challenge(_ response: HTTPResponse) throws -> [UInt8] {
        #expect(response.status == .ok)
        let json = try JSONValue.parse(response.body)
        return try #require(json["challenge"]?.stringValue.flatMap(Base64URL.decode))
    }

    /// The registration options of the signed-in owner.
    static func registrationChallenge(_ harness: OwnersHarness) async throws -> [UInt8] {
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        return try challenge(await harness.send(.POST, "/owner/passkeys/options", form: ["csrf_token": csrf]))
    }

    /// A registration's credential JSON from `authenticator` over `challenge`.
    static func registration(
        _ authenticator: SoftwareAuthenticator, challenge: [UInt8], origin: String = "https://example.com",
        flags: UInt8 = 0x45, rpID: String? = nil
    ) -> String {
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.create", challenge: challenge, origin: origin)
        let attestation = SoftwareAuthenticator.attestationObject(
            authenticator.authenticatorData(flags: flags, signCount: 0, attested: true, rpID: rpID))
        let id = Base64URL.encode(authenticator.credentialID)
        return #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(Base64URL.encode(clientData))","attestationObject":"\#(Base64URL.encode(attestation))"}}"#
    }

    /// A sign-in's credential JSON from `authenticator` over `challenge`.
    static func assertion(
        _ authenticator: SoftwareAuthenticator, challenge: [UInt8], signCount: UInt32 = 1,
        origin: String = "https://example.com", flags: UInt8 = 0x05, rpID: String? = nil, userHandle: [UInt8]? = nil
    ) throws -> String {
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: challenge, origin: origin)
        let data = authenticator.authenticatorData(flags: flags, signCount: signCount, rpID: rpID)
        let signature = try authenticator.sign(authData: data, clientData: clientData)
        let id = Base64URL.encode(authenticator.credentialID)
        let handle = userHandle.map { #","userHandle":"\#(Base64URL.encode($0))""# } ?? ""
        return #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(Base64URL.encode(clientData))","authenticatorData":"\#(Base64URL.encode(data))","signature":"\#(Base64URL.encode(signature))"\#(handle)}}"#
    }

    /// Signs in with the password and registers `authenticator`'s passkey as `name`; signs out after.
    static func register(
        _ harness: OwnersHarness, _ email: String, _ authenticator: SoftwareAuthenticator, name: String = "Laptop"
    ) async throws {
        #expect(try await harness.signIn(email, "correct horse").status == .seeOther)
        let challenge = try await registrationChallenge(harness)
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        let added = await harness.send(
            .POST, "/owner/passkeys",
            form: ["csrf_token": csrf, "name": name, "credential": registration(authenticator, challenge: challenge)])
        #expect(added.status == .seeOther && added.headers["Location"] == "/owner")
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "passkey.added")
        try await signOut(harness)
    }

    static func signOut(_ harness: OwnersHarness) async throws {
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        _ = await harness.send(.POST, "/owner/sign-out", form: ["csrf_token": csrf])
        #expect(harness.cookies[OwnerBrowser.sessionCookie] == nil)
    }

    /// The sign-in page's CSRF token and a new sign-in challenge.
    static func signInChallenge(_ harness: OwnersHarness) async throws -> (csrf: String, challenge: [UInt8]) {
        let page = await harness.send(.GET, "/owner/sign-in")
        let csrf = try #require(OwnersHarness.csrf(in: page))
        return (csrf, try challenge(await harness.send(.POST, "/owner/sign-in/passkey/options", form: ["csrf_token": csrf])))
    }

    static func postSignIn(_ harness: OwnersHarness, csrf: String, _ credential: String, next: String = "/owner")
        async -> HTTPResponse
    {
        await harness.send(
            .POST, "/owner/sign-in/passkey", form: ["csrf_token": csrf, "credential": credential, "next": next])
    }

    /// The answer is the generic refusal, with no session: `/owner` still sends the browser to sign in.
    static func expectRefused(
        _ response: HTTPResponse, _ harness: OwnersHarness, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        #expect(response.status == .unauthorized, sourceLocation: sourceLocation)
        #expect(text(response).contains(refusedWords), sourceLocation: sourceLocation)
        #expect(
            !response.headers.values("Set-Cookie").contains { $0.hasPrefix(OwnerBrowser.sessionCookie + "=") },
            sourceLocation: sourceLocation)
        #expect(harness.cookies[OwnerBrowser.sessionCookie] == nil, sourceLocation: sourceLocation)
        #expect(await harness.send(.GET, "/owner").status == .seeOther, sourceLocation: sourceLocation)
    }

    static func events(_ harness: OwnersHarness) async throws -> [AuditEvent] {
        try await SQLAuditLog(database: harness.test.database).events(since: nil, ownerID: nil, limit: 1000).reversed()
    }

    @Test("a passkey registered from /owner signs its owner in with no email typed", arguments: StorageBackend.allCases)
    func registerAndSignIn(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let authenticator = try SoftwareAuthenticator()
        let signInPage = await harness.send(.GET, "/owner/sign-in")
        #expect(Self.text(signInPage).contains(#"id="passkey-sign-in""#))
        #expect(Self.text(signInPage).contains("needs JavaScript"))
        #expect(Self.text(signInPage).contains(#"autocomplete="username webauthn""#))
        #expect(signInPage.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
        let script = await harness.send(.GET, "/owner/assets/passkeys.js")
        #expect(script.status == .ok && script.headers["Content-Type"]?.hasPrefix("text/javascript") == true)
        #expect(script.body == EmbeddedResources.passkeysScript.bytes)

        try await Self.register(harness, "ada@example.com", authenticator, name: "Ada's <laptop>")
        let ada = try #require(try await harness.service.owners.list().first { $0.email == "ada@example.com" })
        let stored = try await harness.passkeys.credentials(of: .owner(ada.id))
        #expect(stored.count == 1 && stored[0].name == "Ada's <laptop>" && stored[0].algorithm == .eddsa)
        #expect(stored[0].userHandle == PasskeyCeremonies.userHandle(of: .owner(ada.id)))

        let (csrf, challenge) = try await Self.signInChallenge(harness)
        harness.clock.advance(7)
        let signedIn = await Self.postSignIn(
            harness, csrf: csrf,
            try Self.assertion(authenticator, challenge: challenge, userHandle: stored[0].userHandle),
            next: "/owner/domains")
        #expect(signedIn.status == .seeOther && signedIn.headers["Location"] == "/owner/domains")
        #expect(harness.cookies[OwnerBrowser.sessionCookie] != nil)
        let page = await harness.send(.GET, "/owner")
        #expect(page.status == .ok)
        let html = Self.text(page)
        #expect(html.contains(#"id="sign-in-methods""#) && html.contains("Ada&#39;s &lt;laptop&gt;"))
        #expect(html.contains("this device only") && !html.contains(#"id="no-passkeys""#))
        #expect(page.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
        let after = try #require(try await harness.passkeys.credential(withID: authenticator.credentialID))
        #expect(after.signCount == 1 && after.lastUsedAt == harness.clock.now)

        let trail = try await Self.events(harness)
        let added = try #require(trail.first { $0.action == .passkeyAdded })
        #expect(added.ownerID == ada.id && added.target == "Ada's <laptop>")
        let signIn = try #require(trail.last)
        #expect(signIn.action == .ownerSignIn && signIn.ownerID == ada.id)
        #expect(signIn.details?.contains(#""method":"passkey""#) == true)
    }

    @Test("each forged or stale answer gets the same refusal and no session", arguments: StorageBackend.allCases)
    func refusals(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let authenticator = try SoftwareAuthenticator()
        try await Self.register(harness, "ada@example.com", authenticator)

        // Wrong origin, wrong RP ID hash, UV clear, and a credential nobody registered: each spends its challenge.
        let forged: [(SoftwareAuthenticator, String?, UInt8, String?)] = [
            (authenticator, "https://examp1e.com", 0x05, nil), (authenticator, nil, 0x05, "examp1e.com"),
            (authenticator, nil, 0x01, nil), (try SoftwareAuthenticator(seed: 7, credentialID: Array(40...60)), nil, 0x05, nil),
        ]
        var count: UInt32 = 1
        for (signer, origin, flags, rpID) in forged {
            let (csrf, challenge) = try await Self.signInChallenge(harness)
            let answer = try Self.assertion(
                signer, challenge: challenge, signCount: count, origin: origin ?? "https://example.com", flags: flags,
                rpID: rpID)
            await Self.expectRefused(await Self.postSignIn(harness, csrf: csrf, answer), harness)
            count += 1
        }
        // A user handle that is not the passkey's.
        let (csrfHandle, handleChallenge) = try await Self.signInChallenge(harness)
        await Self.expectRefused(
            await Self.postSignIn(
                harness, csrf: csrfHandle,
                try Self.assertion(authenticator, challenge: handleChallenge, signCount: 4, userHandle: [9, 9, 9])),
            harness)
        // Truncated and over-deep answers, and none at all (JavaScript off).
        for answer in ["{\"rawId\":\"AQ", String(repeating: "[", count: 64), ""] {
            let (csrf, _) = try await Self.signInChallenge(harness)
            await Self.expectRefused(await Self.postSignIn(harness, csrf: csrf, answer), harness)
        }

        // A challenge used once is spent, even by a good answer.
        let (csrf, challenge) = try await Self.signInChallenge(harness)
        let good = try Self.assertion(authenticator, challenge: challenge, signCount: 10)
        #expect(await Self.postSignIn(harness, csrf: csrf, good).status == .seeOther)
        try await Self.signOut(harness)
        let csrfAgain = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/sign-in")))
        await Self.expectRefused(
            await Self.postSignIn(
                harness, csrf: csrfAgain, try Self.assertion(authenticator, challenge: challenge, signCount: 11)),
            harness)

        // Five minutes and a second later, a challenge has expired.
        let (csrfLate, late) = try await Self.signInChallenge(harness)
        harness.clock.advance(PasskeyChallenges.lifetime + 1)
        await Self.expectRefused(
            await Self.postSignIn(
                harness, csrf: csrfLate, try Self.assertion(authenticator, challenge: late, signCount: 12)), harness)

        // A registration's challenge (another ceremony, another holder's) opens no sign-in.
        #expect(try await harness.signIn("bob@example.com", "correct horse").status == .seeOther)
        let bobs = try await Self.registrationChallenge(harness)
        try await Self.signOut(harness)
        let (csrfBob, _) = try await Self.signInChallenge(harness)
        await Self.expectRefused(
            await Self.postSignIn(
                harness, csrf: csrfBob, try Self.assertion(authenticator, challenge: bobs, signCount: 13)), harness)

        let refusals = try await Self.events(harness).filter { $0.action == .ownerSignInFailed }
        #expect(refusals.count == 11)
        let reasons = refusals.compactMap(\.details)
        for reason in [
            "verification.origin", "verification.rp_id_hash", "verification.user_verified", "unknown_credential",
            "user_handle", "malformed", "challenge",
        ] {
            #expect(reasons.contains { $0.contains(#""reason":"\#(reason)""#) }, "\(reason)")
        }
    }

    @Test("another owner's registration challenge registers nothing", arguments: StorageBackend.allCases)
    func anotherOwnersChallenge(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        #expect(try await harness.signIn("bob@example.com", "correct horse").status == .seeOther)
        let bobs = try await Self.registrationChallenge(harness)
        try await Self.signOut(harness)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        let answer = await harness.send(
            .POST, "/owner/passkeys",
            form: [
                "csrf_token": csrf, "name": "Stolen",
                "credential": Self.registration(try SoftwareAuthenticator(), challenge: bobs),
            ])
        #expect(answer.status == .seeOther && harness.cookies[OwnerBrowser.flashCookie] == "passkey.refused")
        #expect(Self.text(await harness.send(.GET, "/owner")).contains(Self.refusedWords))
        // UV clear at registration is refused as well.
        let own = try await Self.registrationChallenge(harness)
        _ = await harness.send(
            .POST, "/owner/passkeys",
            form: [
                "csrf_token": csrf, "name": "No UV",
                "credential": Self.registration(try SoftwareAuthenticator(), challenge: own, flags: 0x41),
            ])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "passkey.refused")
        let count = try await harness.test.database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM passkey_credentials", []).first?.int("n")
        }
        #expect(count == 0)
    }

    @Test(
        "a device that already holds a passkey is told so, in the error's colour, and nothing is added",
        arguments: StorageBackend.allCases)
    func alreadyOnDevice(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        // The script posts the form with no credential and failure=already-registered on InvalidStateError.
        let answer = await harness.send(
            .POST, "/owner/passkeys",
            form: ["csrf_token": csrf, "name": "Laptop", "failure": PasskeyPageParts.alreadyRegisteredFailure])
        #expect(answer.status == .seeOther)
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "passkey.already_on_device")
        let page = Self.text(await harness.send(.GET, "/owner"))
        #expect(page.contains("This device already holds a passkey for your account"))
        #expect(!page.contains(Self.refusedWords))
        let count = try await harness.test.database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM passkey_credentials", []).first?.int("n")
        }
        #expect(count == 0)
    }

    @Test("a counter that went back is refused, marked and audited", arguments: StorageBackend.allCases)
    func clonedCounter(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let authenticator = try SoftwareAuthenticator()
        try await Self.register(harness, "ada@example.com", authenticator)
        let (csrf, challenge) = try await Self.signInChallenge(harness)
        #expect(
            await Self.postSignIn(harness, csrf: csrf, try Self.assertion(authenticator, challenge: challenge, signCount: 5))
                .status == .seeOther)
        try await Self.signOut(harness)

        let (csrfClone, cloneChallenge) = try await Self.signInChallenge(harness)
        await Self.expectRefused(
            await Self.postSignIn(
                harness, csrf: csrfClone, try Self.assertion(authenticator, challenge: cloneChallenge, signCount: 5)),
            harness)
        let marked = try #require(try await harness.passkeys.credential(withID: authenticator.credentialID))
        #expect(marked.clonedAt != nil)
        let cloned = try #require(try await Self.events(harness).first { $0.action == .passkeyPossiblyCloned })
        #expect(cloned.ownerID == marked.holder.ownerID && cloned.target == "Laptop")

        // Marked, it signs nobody in, even with a higher counter.
        let (csrfAfter, afterChallenge) = try await Self.signInChallenge(harness)
        await Self.expectRefused(
            await Self.postSignIn(
                harness, csrf: csrfAfter, try Self.assertion(authenticator, challenge: afterChallenge, signCount: 50)),
            harness)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        #expect(Self.text(await harness.send(.GET, "/owner")).contains("possibly cloned"))
    }

    @Test("passkey sign-in slows down after repeated failures, as the password's", arguments: StorageBackend.allCases)
    func throttled(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let authenticator = try SoftwareAuthenticator()
        try await Self.register(harness, "ada@example.com", authenticator)
        for attempt in 0..<6 {
            let (csrf, challenge) = try await Self.signInChallenge(harness)
            let answer = try Self.assertion(authenticator, challenge: challenge, origin: "https://evil.example")
            #expect(await Self.postSignIn(harness, csrf: csrf, answer).status == .unauthorized, "attempt \(attempt)")
        }
        // The sixth failure set the first block (2 s): even a good answer is slowed, and spends nothing.
        let (csrfBlocked, blocked) = try await Self.signInChallenge(harness)
        let refused = await Self.postSignIn(
            harness, csrf: csrfBlocked, try Self.assertion(authenticator, challenge: blocked, signCount: 2))
        #expect(refused.status == .tooManyRequests && refused.headers["Retry-After"] != nil)
        #expect(harness.cookies[OwnerBrowser.sessionCookie] == nil)
        harness.clock.advance(3)
        let (csrfLater, later) = try await Self.signInChallenge(harness)
        #expect(
            await Self.postSignIn(
                harness, csrf: csrfLater, try Self.assertion(authenticator, challenge: later, signCount: 3)
            ).status == .seeOther)
    }

    @Test("owners rename and remove their own passkeys only", arguments: StorageBackend.allCases)
    func renameAndRemove(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        try await Self.register(harness, "ada@example.com", try SoftwareAuthenticator())
        let adaID = try #require(try await harness.service.owners.list().first { $0.email == "ada@example.com" }?.id)
        let passkey = try #require(try await harness.passkeys.credentials(of: .owner(adaID)).first)

        #expect(try await harness.signIn("bob@example.com", "correct horse").status == .seeOther)
        var csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        _ = await harness.send(.POST, "/owner/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "passkey.unknown")
        _ = await harness.send(.POST, "/owner/passkeys/\(passkey.id)/rename", form: ["csrf_token": csrf, "name": "x"])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "passkey.unknown")
        #expect(try await harness.passkeys.credentials(of: .owner(adaID)).map(\.name) == ["Laptop"])
        try await Self.signOut(harness)

        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        _ = await harness.send(.POST, "/owner/passkeys/\(passkey.id)/rename", form: ["csrf_token": csrf, "name": " "])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "passkey.invalid_name")
        _ = await harness.send(
            .POST, "/owner/passkeys/\(passkey.id)/rename", form: ["csrf_token": csrf, "name": "  Phone "])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "passkey.renamed")
        #expect(try await harness.passkeys.credentials(of: .owner(adaID)).map(\.name) == ["Phone"])
        let removed = await harness.send(.POST, "/owner/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect(removed.status == .seeOther && harness.cookies[OwnerBrowser.flashCookie] == "passkey.removed")
        #expect(try await harness.passkeys.credentials(of: .owner(adaID)).isEmpty)
        #expect(Self.text(await harness.send(.GET, "/owner")).contains(#"id="no-passkeys""#))
        let actions = try await Self.events(harness).map(\.action)
        #expect(actions.filter { $0 == .passkeyRenamed }.count == 1 && actions.contains(.passkeyRemoved))
        // Without a CSRF token nothing happens.
        #expect(await harness.send(.POST, "/owner/passkeys/options", form: [:]).status == .forbidden)
    }

    @Test(
        "the password typed to remove it is checked under the sign-in's backoff: past it, not even the right one",
        arguments: StorageBackend.allCases)
    func passwordRemovalBackoff(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        try await Self.register(harness, "ada@example.com", try SoftwareAuthenticator())
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        var flashes: [String?] = []
        for _ in 0..<8 {
            _ = await harness.send(.POST, "/owner/password/remove", form: ["csrf_token": csrf, "password": "wrong horse"])
            flashes.append(harness.cookies[OwnerBrowser.flashCookie])
        }
        #expect(flashes.first == "password.wrong" && flashes.last == "password.slowed", "\(flashes)")
        _ = await harness.send(.POST, "/owner/password/remove", form: ["csrf_token": csrf, "password": "correct horse"])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "password.slowed")
        let ada = try #require(try await harness.service.owners.list().first { $0.email == "ada@example.com" })
        #expect(try await harness.service.owners.hasPassword(ownerID: ada.id))
        // The same count slows the password sign-in: the removal form is no way around it.
        try await Self.signOut(harness)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .tooManyRequests)
    }

    @Test(
        "an owner holding a passkey may remove their password; the last way to sign in is never removed",
        arguments: StorageBackend.allCases)
    func passwordRemoval(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        // No passkey yet: the password is the only way in and stays.
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        var csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        #expect(!Self.text(await harness.send(.GET, "/owner")).contains(#"id="remove-password""#))
        _ = await harness.send(.POST, "/owner/password/remove", form: ["csrf_token": csrf, "password": "correct horse"])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "signin.last_way")
        try await Self.signOut(harness)

        let authenticator = try SoftwareAuthenticator()
        try await Self.register(harness, "ada@example.com", authenticator)
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .seeOther)
        csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner")))
        #expect(Self.text(await harness.send(.GET, "/owner")).contains(#"id="remove-password""#))
        _ = await harness.send(.POST, "/owner/password/remove", form: ["csrf_token": csrf, "password": "wrong horse"])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "password.wrong")
        _ = await harness.send(.POST, "/owner/password/remove", form: ["csrf_token": csrf, "password": "correct horse"])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "password.removed")
        let page = Self.text(await harness.send(.GET, "/owner"))
        #expect(page.contains(#"<span id="method-password">Password: none</span>"#))
        let ada = try #require(try await harness.service.owners.list().first { $0.email == "ada@example.com" })
        #expect(try await !harness.service.owners.hasPassword(ownerID: ada.id))
        #expect(try await Self.events(harness).contains { $0.action == .ownerPasswordRemoved && $0.ownerID == ada.id })

        // The last passkey that signs in stays.
        let passkey = try #require(try await harness.passkeys.credentials(of: .owner(ada.id)).first)
        _ = await harness.send(.POST, "/owner/passkeys/\(passkey.id)/remove", form: ["csrf_token": csrf])
        #expect(harness.cookies[OwnerBrowser.flashCookie] == "signin.last_way")
        #expect(try await harness.passkeys.credentials(of: .owner(ada.id)).count == 1)
        try await Self.signOut(harness)

        // The password signs nobody in now; the passkey does.
        #expect(try await harness.signIn("ada@example.com", "correct horse").status == .unauthorized)
        let (token, challenge) = try await Self.signInChallenge(harness)
        #expect(
            await Self.postSignIn(harness, csrf: token, try Self.assertion(authenticator, challenge: challenge))
                .status == .seeOther)
        // The operator's set-password gives one back.
        #expect(try await harness.service.owners.setPassword(email: "ada@example.com", password: "new horse shoe"))
        #expect(try await harness.service.owners.hasPassword(ownerID: ada.id))
        #expect(try await harness.signIn("ada@example.com", "new horse shoe").status == .seeOther)
    }

    @Test("a ceremony begun on one instance finishes on another", arguments: StorageBackend.allCases)
    func crossInstance(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let authenticator = try SoftwareAuthenticator()
        try await Self.register(harness, "ada@example.com", authenticator)
        // A second instance: its own service and routes over the same database, as behind a load balancer.
        let clock = harness.clock
        let second = try OwnerService(
            configuration: harness.service.configuration, database: harness.test.database, pool: WorkerPool(threads: 1),
            resolver: harness.resolver, customDomains: harness.customDomains, clock: { clock.now }, monotonicClock: clock.monotonic,
            passkeyStore: PasskeyStore(database: harness.test.database), relyingParty: Self.party,
            secondFactors: SecondFactorStore(.owners, database: harness.test.database, sealing: nil, clock: { clock.now }))
        var router = ContextRouter()
        second.register(into: &router)

        let (csrf, challenge) = try await Self.signInChallenge(harness)
        var browser = harness.browser
        let answer = await browser.send(
            .POST, "/owner/sign-in/passkey",
            form: [
                ("csrf_token", csrf), ("credential", try Self.assertion(authenticator, challenge: challenge)),
                ("next", "/owner"),
            ], through: router)
        #expect(answer.status == .seeOther && browser.cookies[OwnerBrowser.sessionCookie] != nil)
        harness.browser.cookies = browser.cookies
        #expect(await harness.send(.GET, "/owner").status == .ok)
        // Spent on the second instance, the challenge is spent on the first.
        try await Self.signOut(harness)
        let token = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/sign-in")))
        await Self.expectRefused(
            await Self.postSignIn(
                harness, csrf: token, try Self.assertion(authenticator, challenge: challenge, signCount: 9)), harness)
    }

    @Test("without an RP ID no passkey is offered", arguments: StorageBackend.allCases)
    func noRelyingParty(_ backend: StorageBackend) async throws {
        let harness = try OwnersHarness(backend)
        harness.routeInboxPages()
        let page = await harness.send(.GET, "/owner/sign-in")
        #expect(!Self.text(page).contains("passkey-sign-in"))
        #expect(page.headers["Content-Security-Policy"]?.contains("script-src") == false)
        #expect(await harness.send(.POST, "/owner/sign-in/passkey/options", form: [:]).status == .notFound)
    }
}

extension OwnersHarness {
    /// The passkeys table the service reads.
    var passkeys: PasskeyStore { PasskeyStore(database: test.database) }
}

extension PasskeyHolder {
    /// The owner's id, for tests.
    var ownerID: String? {
        if case .owner(let id) = self { return id }
        return nil
    }
}

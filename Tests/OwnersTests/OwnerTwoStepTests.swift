import Audit
import HTTP1
import Owners
import PosternTestSupport
import SignInMethods
import Storage
import TOTP
import Testing

/// An owner's second factor (issue 88 item 3) through the pages: set up only on a recent sign-in, confirmed by a
/// first code, then asked for after the password; a code signs in once, a recovery code once, wrong codes slow the
/// owner down; the session records how it was earned.
@Suite("Owners: two-step sign-in (TOTP and recovery codes)")
struct OwnerTwoStepTests {
    static let email = "ada@example.com"
    static let password = "correct horse"

    static func harness(
        _ backend: StorageBackend, policy: SecondFactorPolicy = .optional
    ) async throws -> OwnersHarness {
        let harness = try OwnersHarness(backend) { $0.secondFactor = policy }
        OwnerTwoStepPages(service: harness.service).register(into: &harness.router)
        _ = try await harness.service.owners.create(email: email, password: password, approved: true)
        return harness
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// The secret a setup page shows (`#totp-secret`).
    static func secret(in response: HTTPResponse) throws -> [UInt8] {
        let html = text(response)
        let range = try #require(html.range(of: "id=\"totp-secret\">"))
        return try #require(Base32.decode(String(html[range.upperBound...].prefix { $0 != "<" })))
    }

    /// The recovery codes a page shows (`#recovery-code-list`).
    static func recoveryCodes(in response: HTTPResponse) -> [String] {
        text(response).split(separator: "<li><code>").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    /// The code of `secret` at the harness's time, `offset` steps away.
    static func code(_ secret: [UInt8], _ harness: OwnersHarness, offset: Int64 = 0) -> String {
        let totp = TOTP()
        return totp.code(secret: secret, step: totp.step(at: harness.clock.now) + offset)
    }

    /// Sets up and confirms TOTP on a fresh session: the secret and the recovery codes.
    static func enrol(_ harness: OwnersHarness) async throws -> (secret: [UInt8], codes: [String]) {
        #expect(try await harness.signIn(email, password).status == .seeOther)
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/two-step")))
        let setup = await harness.send(.POST, "/owner/two-step/setup", form: ["csrf_token": csrf])
        #expect(setup.status == .ok)
        let secret = try Self.secret(in: setup)
        #expect(text(setup).contains("otpauth://totp/127.0.0.1:ada%40example.com?secret="))
        let confirmed = await harness.send(
            .POST, "/owner/two-step/confirm", form: ["csrf_token": csrf, "code": code(secret, harness)])
        #expect(confirmed.status == .ok)
        return (secret, recoveryCodes(in: confirmed))
    }

    /// Signs in with the password: the 303 to the second step, and its page's CSRF token.
    static func firstStep(_ harness: OwnersHarness) async throws -> String {
        harness.cookies[OwnerBrowser.sessionCookie] = nil
        let answer = try await harness.signIn(email, password)
        #expect(answer.status == .seeOther)
        #expect(answer.headers["Location"] == "/owner/sign-in/second-step")
        #expect(harness.cookies[OwnerBrowser.sessionCookie] == nil)
        return try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/sign-in/second-step")))
    }

    static func secondStep(_ harness: OwnersHarness, _ csrf: String, _ code: String) async -> HTTPResponse {
        await harness.send(.POST, "/owner/sign-in/second-step", form: ["csrf_token": csrf, "code": code])
    }

    @Test("turning the factor on ends the owner's other sessions, the one that turned it on stays", arguments: StorageBackend.allCases)
    func enrolmentEndsOtherSessions(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let sessions = harness.service.browser.sessions
        let ownerID = try #require(try await harness.service.owners.list().first { $0.email == Self.email }?.id)
        let other = try await sessions.open(ownerID: ownerID, methods: .password)
        let stranger = try await harness.service.owners.create(email: "bob@example.com", password: Self.password, approved: true)
        let strangers = try await sessions.open(ownerID: stranger.id, methods: .password)
        _ = try await Self.enrol(harness)
        let kept = try #require(harness.cookies[OwnerBrowser.sessionCookie])
        #expect(try await sessions.owner(token: kept)?.id == ownerID)
        #expect(await harness.send(.GET, "/owner/two-step").status == .ok)
        #expect(try await sessions.owner(token: other) == nil, "a session of the password alone ended")
        #expect(try await sessions.owner(token: strangers)?.id == stranger.id, "another owner's stays")
    }

    @Test("setup needs a sign-in of the last five minutes; a wrong first code turns nothing on", arguments: StorageBackend.allCases)
    func enrolmentNeedsFreshProof(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        #expect(try await harness.signIn(Self.email, Self.password).status == .seeOther)
        harness.clock.advance(5 * 60 + 1)
        let csrf = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/two-step")))
        let stale = await harness.send(.POST, "/owner/two-step/setup", form: ["csrf_token": csrf])
        #expect(stale.status == .forbidden)
        #expect(!Self.text(stale).contains("totp-secret"))

        harness.cookies[OwnerBrowser.sessionCookie] = nil
        #expect(try await harness.signIn(Self.email, Self.password).status == .seeOther)
        let fresh = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/two-step")))
        let setup = await harness.send(.POST, "/owner/two-step/setup", form: ["csrf_token": fresh])
        let secret = try Self.secret(in: setup)
        let wrong = await harness.send(
            .POST, "/owner/two-step/confirm",
            form: ["csrf_token": fresh, "code": Self.code(secret, harness, offset: 3)])
        #expect(wrong.status == .unprocessableEntity)
        let ada = try #require(try await harness.service.owners.list().first)
        #expect(try await harness.service.secondFactors.state(ownerID: ada.id) == .pending)
        // Pending asks nothing at sign-in.
        harness.cookies[OwnerBrowser.sessionCookie] = nil
        #expect(try await harness.signIn(Self.email, Self.password).headers["Location"] == "/owner")

        let again = try #require(OwnersHarness.csrf(in: await harness.send(.GET, "/owner/two-step")))
        let right = await harness.send(
            .POST, "/owner/two-step/confirm", form: ["csrf_token": again, "code": Self.code(secret, harness)])
        #expect(right.status == .ok)
        #expect(Self.recoveryCodes(in: right).count == 10)
        #expect(try await harness.service.secondFactors.state(ownerID: ada.id) == .on(recoveryCodesLeft: 10))
        let events = try await harness.auditLog.events(since: nil, ownerID: ada.id, limit: 50)
        #expect(events.contains { $0.action == .ownerSecondFactorOn })
    }

    @Test("after the password a code opens the session once; a replayed code and a wrong one are refused", arguments: StorageBackend.allCases)
    func secondStep(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let (secret, _) = try await Self.enrol(harness)
        harness.clock.advance(60)  // past the step the confirmation used

        var csrf = try await Self.firstStep(harness)
        #expect(await Self.secondStep(harness, csrf, "000000").status == .unauthorized)
        let code = Self.code(secret, harness)
        let passed = await Self.secondStep(harness, csrf, code)
        #expect(passed.status == .seeOther && passed.headers["Location"] == "/owner")
        let token = try #require(harness.cookies[OwnerBrowser.sessionCookie])
        let methods = try #require(try await harness.service.browser.sessions.methods(token: token))
        #expect(methods.amr == ["pwd", "otp", "mfa"])

        // The same code again, on a new sign-in within its window: refused.
        csrf = try await Self.firstStep(harness)
        #expect(await Self.secondStep(harness, csrf, code).status == .unauthorized)
        #expect(harness.cookies[OwnerBrowser.sessionCookie] == nil)
        let failures = try await harness.auditLog.events(since: nil, ownerID: nil, limit: 50)
            .filter { $0.action == .ownerSignInFailed }
        #expect(failures.contains { $0.details?.contains("code_replayed") == true })
        // The next step's code passes.
        harness.clock.advance(30)
        #expect(await Self.secondStep(harness, csrf, Self.code(secret, harness)).status == .seeOther)
    }

    @Test("a recovery code signs in once; wrong codes count toward the backoff", arguments: StorageBackend.allCases)
    func recoveryCodeAndBackoff(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let (_, codes) = try await Self.enrol(harness)
        let ada = try #require(try await harness.service.owners.list().first)

        var csrf = try await Self.firstStep(harness)
        #expect(await Self.secondStep(harness, csrf, codes[0].uppercased()).status == .seeOther)
        #expect(try await harness.service.secondFactors.state(ownerID: ada.id) == .on(recoveryCodesLeft: 9))
        csrf = try await Self.firstStep(harness)
        #expect(await Self.secondStep(harness, csrf, codes[0]).status == .unauthorized)

        // Five more wrong codes make six, one past the five free: the next try is slowed, whatever the code.
        for _ in 0..<5 { #expect(await Self.secondStep(harness, csrf, "111111").status == .unauthorized) }
        let slowed = await Self.secondStep(harness, csrf, codes[1])
        #expect(slowed.status == .tooManyRequests)
        #expect(slowed.headers["Retry-After"] != nil)
        #expect(try await harness.service.secondFactors.state(ownerID: ada.id) == .on(recoveryCodesLeft: 9))
    }

    @Test("required for passwords: an owner without a second factor sets one up before the session opens", arguments: StorageBackend.allCases)
    func requiredSetUp(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend, policy: .requiredForPasswords)
        let csrf = try await Self.firstStep(harness)
        let page = await harness.send(.GET, "/owner/sign-in/second-step")
        let secret = try Self.secret(in: page)
        #expect(await Self.secondStep(harness, csrf, "123456").status == .unauthorized)
        let done = await Self.secondStep(harness, csrf, Self.code(secret, harness))
        #expect(done.status == .ok)
        #expect(Self.recoveryCodes(in: done).count == 10)
        let token = try #require(harness.cookies[OwnerBrowser.sessionCookie])
        #expect(try await harness.service.browser.sessions.methods(token: token)?.amr == ["pwd", "otp", "mfa"])
    }

    /// Signs in with the password, then runs `change` on the owner's ways in: the second step's page and a right code
    /// of a step not used before both send the browser back to sign in, and no session opens.
    static func expectStale(
        _ harness: OwnersHarness, _ secret: [UInt8], _ change: () async throws -> Void
    ) async throws {
        harness.clock.advance(30)
        let csrf = try await Self.firstStep(harness)
        try await change()
        let page = await harness.send(.GET, "/owner/sign-in/second-step")
        #expect(page.status == .seeOther && page.headers["Location"] == "/owner/sign-in")
        let posted = await Self.secondStep(harness, csrf, Self.code(secret, harness))
        #expect(posted.status == .seeOther && posted.headers["Location"] == "/owner/sign-in")
        #expect(harness.cookies[OwnerBrowser.sessionCookie] == nil)
    }

    @Test(
        "a half-done sign-in rests on the owner's ways in as its password found them: a password set (even the same one) or the factor reset since, its second step is gone",
        arguments: StorageBackend.allCases)
    func staleSecondStep(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let (secret, _) = try await Self.enrol(harness)
        let ada = try #require(try await harness.service.owners.list().first)
        // The operator sets the password (`postern owner set-password`), to the same text: a new hash, a new salt.
        try await Self.expectStale(harness, secret) {
            let set = try await harness.service.owners.setPassword(email: Self.email, password: Self.password)
            #expect(set)
        }
        // A sign-in begun after it goes through.
        harness.clock.advance(30)
        let csrf = try await Self.firstStep(harness)
        let passed = await Self.secondStep(harness, csrf, Self.code(secret, harness))
        #expect(passed.status == .seeOther && passed.headers["Location"] == "/owner")
        // `postern owner mfa reset` (the store's removal) while a sign-in waits at its second step.
        try await Self.expectStale(harness, secret) {
            let removed = try await harness.service.secondFactors.remove(ownerID: ada.id)
            #expect(removed)
        }
    }

    @Test(
        "required for passwords: another browser turning the factor on at its own second step ends a sign-in waiting at the setup",
        arguments: StorageBackend.allCases)
    func staleSetUp(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend, policy: .requiredForPasswords)
        let staleCSRF = try await Self.firstStep(harness)
        let stale = harness.cookies
        harness.cookies = [:]
        let csrf = try await Self.firstStep(harness)
        let secret = try Self.secret(in: await harness.send(.GET, "/owner/sign-in/second-step"))
        #expect(await Self.secondStep(harness, csrf, Self.code(secret, harness)).status == .ok)
        harness.cookies = stale
        harness.clock.advance(30)
        let page = await harness.send(.GET, "/owner/sign-in/second-step")
        #expect(page.status == .seeOther && page.headers["Location"] == "/owner/sign-in")
        let posted = await Self.secondStep(harness, staleCSRF, Self.code(secret, harness))
        #expect(posted.status == .seeOther && posted.headers["Location"] == "/owner/sign-in")
        #expect(harness.cookies[OwnerBrowser.sessionCookie] == nil)
    }

    @Test("one code checked by many requests at once is accepted by exactly one", arguments: StorageBackend.allCases)
    func concurrentReplay(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend)
        let (secret, _) = try await Self.enrol(harness)
        harness.clock.advance(30)
        let ada = try #require(try await harness.service.owners.list().first)
        let code = Self.code(secret, harness)
        let factors = harness.service.secondFactors
        let results = try await withThrowingTaskGroup(of: OwnerSecondFactors.Check.self) { group in
            for _ in 0..<8 { group.addTask { try await factors.check(ownerID: ada.id, code: code) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { $0 == .totp }.count == 1)
        #expect(results.filter { $0 == .replayed }.count == 7)
    }

    @Test("off: no second step, and no setup page", arguments: [StorageBackend.sqlite])
    func off(_ backend: StorageBackend) async throws {
        let harness = try await Self.harness(backend, policy: .off)
        #expect(try await harness.signIn(Self.email, Self.password).headers["Location"] == "/owner")
        #expect(await harness.send(.GET, "/owner/two-step").status == .notFound)
        let token = try #require(harness.cookies[OwnerBrowser.sessionCookie])
        #expect(try await harness.service.browser.sessions.methods(token: token)?.amr == ["pwd"])
    }
}

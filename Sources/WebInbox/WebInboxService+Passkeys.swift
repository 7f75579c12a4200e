import Audit
import AuthCrypto
import BrowserPages
import ClientAddress
import HTTP1
import Owners
import Passkeys
import ServerKit
import SignInProviders

/// Pro users' passkeys in the web inbox (issue 56), through the owners' ``PasskeyCeremonies``:
/// - `POST /inbox/sign-in/passkey/options` (the sign-in page's CSRF token) answers the sign-in's options as JSON;
///   `POST /inbox/sign-in/passkey` (`credential`) signs the passkey's Pro user in as their password does (a 303 to
///   `/inbox` with a new session resting on their token epoch), or answers the sign-in page with one generic message
///   (401), or, slowed, 429. Throttled as the password is (``SignInThrottle``, namespace `inbox-passkey`), by the
///   credential id and the client's address. An owner's passkey here is an unknown one.
/// - Signed-in Pro users (``proUserRoute(_:)``): `POST /inbox/passkeys/options` answers the registration's options;
///   `POST /inbox/passkeys` (`credential`, `name`) stores the passkey; `.../{id}/rename` (`name`) and `.../{id}/remove`.
///   Each answers 303 to the Pro dashboard with a one-time notice. A passkey that is not the user's is an unknown one.
/// - `POST /inbox/password/remove` (`password`, asked once more): a Pro user left another way in (a passkey that signs
///   in or a linked provider, ``SignInWays``) removes their password, as an owner does at `/owner/password/remove`;
///   then `POST /api/user/login` and the password sign-in refuse them as a wrong password, and they sign in with
///   their passkeys (or providers). Their sessions, Pro JWTs and `tm_pro_` tokens stand. Removing the last passkey
///   that signs in is refused while they have no password and no linked provider. `postern pro set-password` gives a
///   password back.
/// - `GET /inbox/assets/passkeys.js`: the forms' script (``WebInboxPasskeys/script``).
///
/// Every ceremony counts in `postern_passkey_ceremonies_total`; the audit trail gets `pro.signin` (details
/// `{"method":"passkey"}`), `pro.signin_failed` (actor `passkey`, the reason in the details, never shown),
/// `passkey.possibly_cloned`, `passkey.added|renamed|removed` and `pro.password_removed`, each with the Pro user as the
/// actor.
extension WebInboxService {
    /// What every refused passkey ceremony says: which check failed is for the audit trail only.
    static let passkeyRefused = "That passkey could not be used. Try again, or sign in another way."
    /// The sign-in throttle's namespace (``SignInThrottle/keys(name:client:namespace:)``).
    static let passkeyThrottleNamespace = "inbox-passkey"

    func registerPasskeys(into router: inout ContextRouter) {
        guard passkeys != nil else { return }
        let limit = configuration.bodyLimit
        router.add(
            .POST, "/inbox/passkeys/options", bodyLimit: limit,
            proUserRoute { [self] call in try await passkeyRegistrationOptions(call) })
        router.add(.POST, "/inbox/passkeys", bodyLimit: limit, proUserRoute { [self] call in try await addPasskey(call) })
        router.add(
            .POST, "/inbox/passkeys/{id}/rename", bodyLimit: limit,
            proUserRoute { [self] call in try await renamePasskey(call) })
        router.add(
            .POST, "/inbox/passkeys/{id}/remove", bodyLimit: limit,
            proUserRoute { [self] call in try await removePasskey(call) })
        router.add(
            .POST, "/inbox/password/remove", bodyLimit: limit,
            proUserRoute { [self] call in try await removePassword(call) })
        pages.addPasskeySignIn(
            to: &router, script: WebInboxPasskeys.script, path: "/inbox/sign-in/passkey", bodyLimit: limit,
            options: { [self] in try await passkeySignInOptions($0) },
            signIn: { [self] in try await passkeySignIn($0, client: $1, address: $2) })
    }

    /// "Sign-in methods" of the Pro dashboard for the signed-in user of `call`: whether they have a password, their
    /// passkeys and the form that adds one, their linked providers with link and unlink forms; empty when the server
    /// offers neither passkeys nor providers. A page that shows it allows `script-src 'self'` (``offersPasskeys``).
    public func signInMethodsSection(_ call: WebInboxProUserCall) async throws -> HTML {
        guard passkeys != nil || providers != nil else { return .empty }
        let ways = try await proSignInWays(call.proUserID)
        let providerPart = SignInProviderPart(
            providers: providers?.buttons ?? [], identities: ways.identities, csrfToken: call.csrfToken,
            targets: .init(
                linkAction: "/inbox/sign-in-methods/link", linkFields: [], unlinkAction: "/inbox/sign-in-methods/unlink"),
            time: WebInboxPage.time
        ).render()
        return WebInboxPasskeyParts.signInMethods(
            hasPassword: ways.hasPassword, removable: passkeys != nil && ways.keepsAWayIn(without: .password),
            passkeys: try await passkeys?.ceremonies.store.credentials(of: .proUser(call.proUserID)),
            providers: providerPart, csrfToken: call.csrfToken)
    }

    /// Whether Pro users are offered passkeys here: a page showing ``passkeySection(_:)`` loads their script.
    public var offersPasskeys: Bool { passkeys != nil }

    // MARK: - Sign-in

    func passkeySignInOptions(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let passkeys, forms.csrfValid(request.formFields(), request) else {
            return HTTPResponse.noStoreJSON(.forbidden, ["error": "csrf"])
        }
        do {
            return HTTPResponse.noStoreJSON(.ok, try await passkeys.ceremonies.signInOptions(now: clock()))
        } catch is PasskeyChallengesFull {
            return HTTPResponse.noStoreJSON(.serviceUnavailable, ["error": "busy"])
        }
    }

    func passkeySignIn(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws
        -> HTTPResponse
    {
        let fields = request.formFields()
        var page = signInForm()
        guard let passkeys else { return form(.notFound, request, page) }
        guard forms.csrfValid(fields, request) else {
            page.error = WebInboxPage.csrfMessage
            return form(.forbidden, request, page)
        }
        let now = clock()
        let attempt = try await PasskeySignInAttempt(
            credential: fields["credential"], client: client, namespace: Self.passkeyThrottleNamespace,
            throttle: throttle, now: now)
        if attempt.retryAfter > 0 {
            passkeys.onCeremony("sign_in", "slowed")
            await recordRefusedPasskey(passkeys, reason: "slowed", client: address)
            return refusedPasskey(request, page, retryAfter: attempt.retryAfter)
        }
        do {
            let credential = try await passkeys.ceremonies.signIn(attempt.response, now: now)
            // An owner's passkey at the web inbox's door: theirs is /owner/sign-in. A Pro user no longer active (or
            // gone) is refused as their password would be.
            guard case .proUser(let userID) = credential.holder,
                let (principal, binding) = try await signIns?.signIn(.passkey(proUserID: userID))
            else { throw PasskeyRefusal.unknownCredential }
            try await throttle.succeeded(attempt.keys)
            passkeys.onCeremony("sign_in", "success")
            let answer = try await startSession(principal, binding, request)
            await passkeys.audit.record {
                AuditEvent(
                    time: $0, actorKind: .pro, actorID: userID, ownerID: nil, action: .proSignIn, target: userID,
                    clientAddress: address, details: AuditDetails.json(["method": "passkey", "passkey": credential.id]))
            }
            return answer
        } catch let refusal as PasskeyRefusal {
            try await throttle.failed(attempt.keys, now: now)
            if case .possiblyCloned(let credential) = refusal {
                passkeys.onCeremony("sign_in", "possibly_cloned")
                if case .proUser(let userID) = credential.holder {
                    await recordPro(
                        passkeys, userID, .passkeyPossiblyCloned, target: credential.name, client: address,
                        passkey: credential.id)
                }
            } else {
                passkeys.onCeremony("sign_in", "refused")
            }
            await recordRefusedPasskey(passkeys, reason: refusal.reason, client: address)
            return refusedPasskey(request, page)
        }
    }

    /// The sign-in page with the one refusal: 401, or 429 with `Retry-After` when the throttle shut the door.
    private func refusedPasskey(_ request: HTTPRequest, _ page: WebInboxSignInForm, retryAfter: Int64 = 0)
        -> HTTPResponse
    {
        var page = page
        page.error = Self.passkeyRefused
        var answer = form(retryAfter > 0 ? .tooManyRequests : .unauthorized, request, page)
        if retryAfter > 0 { answer.headers.setRetryAfter(seconds: Int(retryAfter)) }
        return answer
    }

    /// `pro.signin_failed` with the actor `passkey` (nobody typed a name) and the reason in the details.
    private func recordRefusedPasskey(_ passkeys: WebInboxPasskeys, reason: String, client: String?) async {
        await passkeys.audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: "passkey", ownerID: nil, action: .proSignInFailed,
                target: "passkey", clientAddress: client, details: AuditDetails.json(["reason": reason]))
        }
    }

    // MARK: - The Pro user's passkeys

    func passkeyRegistrationOptions(_ call: WebInboxProUserCall) async throws -> HTTPResponse {
        guard let passkeys else { return HTTPResponse.noStoreJSON(.notFound, ["error": "not_found"]) }
        let options = try await passkeys.ceremonies.registrationOptions(
            for: .proUser(call.proUserID), name: call.viewer.label, now: clock())
        return HTTPResponse.noStoreJSON(.ok, options)
    }

    func addPasskey(_ call: WebInboxProUserCall) async throws -> HTTPResponse {
        guard let passkeys else { return WebInboxPage.notFound() }
        let fields = call.request.formFields()
        do {
            let passkey = try await passkeys.ceremonies.register(
                Array((fields["credential"] ?? "").utf8), for: .proUser(call.proUserID), name: fields["name"] ?? "",
                now: clock())
            passkeys.onCeremony("registration", "success")
            await recordPro(
                passkeys, call.proUserID, .passkeyAdded, target: passkey.name, client: call.client,
                passkey: passkey.id, synced: passkey.backupEligible)
            return try await dashboard(call, WebInboxFlash(notice: "Passkey added."))
        } catch let refusal as PasskeyRefusal {
            passkeys.onCeremony("registration", "refused")
            return try await dashboard(
                call,
                WebInboxFlash(
                    error: refusal == .invalidName ? Self.invalidPasskeyName : "That passkey could not be added."))
        }
    }

    func renamePasskey(_ call: WebInboxProUserCall) async throws -> HTTPResponse {
        guard let passkeys else { return WebInboxPage.notFound() }
        let name = call.request.formFields()["name"] ?? ""
        do {
            guard try await passkeys.ceremonies.store.rename(call.id, of: .proUser(call.proUserID), to: name) else {
                return try await dashboard(call, WebInboxFlash(error: Self.unknownPasskey))
            }
        } catch PasskeyStoreError.invalidName {
            return try await dashboard(call, WebInboxFlash(error: Self.invalidPasskeyName))
        }
        await recordPro(
            passkeys, call.proUserID, .passkeyRenamed, target: name.trimmingCharacters(in: .whitespacesAndNewlines),
            client: call.client, passkey: call.id)
        return try await dashboard(call, WebInboxFlash(notice: "Passkey renamed."))
    }

    /// A passkey goes unless it is the user's last way in (``SignInWays``): a Pro user a provider made has no password,
    /// so their last passkey stays once they have unlinked every provider.
    func removePasskey(_ call: WebInboxProUserCall) async throws -> HTTPResponse {
        guard let passkeys else { return WebInboxPage.notFound() }
        let holder = PasskeyHolder.proUser(call.proUserID)
        let store = passkeys.ceremonies.store
        guard let passkey = try await store.credentials(of: holder).first(where: { $0.id == call.id }) else {
            return try await dashboard(call, WebInboxFlash(error: Self.unknownPasskey))
        }
        guard try await proSignInWays(call.proUserID).keepsAWayIn(without: .passkey(id: passkey.id)) else {
            return try await dashboard(call, WebInboxFlash(error: SignInMessage.lastWay))
        }
        guard try await store.remove(call.id, of: holder) else {
            return try await dashboard(call, WebInboxFlash(error: Self.unknownPasskey))
        }
        await recordPro(
            passkeys, call.proUserID, .passkeyRemoved, target: passkey.name, client: call.client, passkey: passkey.id)
        return try await dashboard(call, WebInboxFlash(notice: "Passkey removed."))
    }

    /// `POST /inbox/password/remove` (`password`, to confirm): only for a Pro user left another way in. The password
    /// is checked under the password sign-in's backoff, by the same name: a session is no way around it.
    func removePassword(_ call: WebInboxProUserCall) async throws -> HTTPResponse {
        guard let passkeys, let signIns else { return WebInboxPage.notFound() }
        guard try await proSignInWays(call.proUserID).keepsAWayIn(without: .password) else {
            return try await dashboard(call, WebInboxFlash(error: SignInMessage.lastWay))
        }
        let password = call.request.formFields()["password"] ?? ""
        let keys = Self.proUserKeys(email: call.viewer.label, client: call.clientKey)
        switch try await throttle.attempt(keys, now: clock(), {
            try await signIns.removeProUserPassword(call.proUserID, password: password)
        }) {
        case .slowed(let seconds):
            let error = SignInMessage.passwordRemovalSlowed(retryAfter: seconds)
            return try await dashboard(call, WebInboxFlash(error: error))
        case .failed: return try await dashboard(call, WebInboxFlash(error: SignInMessage.passwordNotRemoved))
        case .passed: break
        }
        await passkeys.audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: call.proUserID, ownerID: nil, action: .proPasswordRemoved,
                target: call.viewer.label, clientAddress: call.client, details: nil)
        }
        return try await dashboard(call, WebInboxFlash(notice: SignInMessage.passwordRemoved))
    }

    static let unknownPasskey = "There is no such passkey."
    static let invalidPasskeyName =
        "A passkey's name is 1 to \(PasskeyStore.maximumNameLength) characters, without control characters."

    private func dashboard(_ call: WebInboxProUserCall, _ flash: WebInboxFlash) async throws -> HTTPResponse {
        try await call.put(flash)
        return HTMLPage.redirect(to: Self.dashboardPath)
    }

    private func recordPro(
        _ passkeys: WebInboxPasskeys, _ userID: String, _ action: AuditAction, target: String, client: String?,
        passkey: String, synced: Bool? = nil
    ) async {
        let details =
            synced.map { AuditDetails.json(["passkey": passkey, "synced": $0 ? "yes" : "no"]) }
            ?? AuditDetails.json(["passkey": passkey])
        await passkeys.audit.record {
            AuditEvent(
                time: $0, actorKind: .pro, actorID: userID, ownerID: nil, action: action, target: target,
                clientAddress: client, details: details)
        }
    }
}

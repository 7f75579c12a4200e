import Audit
import AuthCrypto
import BrowserPages
import ClientAddress
import HTTP1
import Passkeys
import ServerKit

/// The owners' passkeys over HTTP (issue 56), through ``PasskeyCeremonies``:
/// - `POST /owner/sign-in/passkey/options` (the pre-session CSRF token) answers the sign-in's options as JSON;
///   `POST /owner/sign-in/passkey` (`credential`, `next`) signs in as the password form does: a 303 to `next` with a
///   new session, or the sign-in page with one generic message (401), or, slowed, 429. It is throttled as the password
///   is (``SignInThrottle``, its own namespace), by the credential id and the client's address.
/// - `POST /owner/passkeys/options` (signed in) answers the registration's options; `POST /owner/passkeys`
///   (`credential`, `name`) stores the passkey; `.../{id}/rename` (`name`) and `.../{id}/remove`. Each answers 303 to
///   `/owner` with a one-time notice (``OwnerSignInMethodsFlash``). A passkey that is not the owner's is answered as an
///   unknown one.
/// - `POST /owner/password/remove` (`password`): an owner left another way in (a passkey that signs in or a linked
///   provider) removes their password (``OwnerStore/removePassword(of:password:client:)``, under the password sign-in's backoff); removing the last passkey
///   that signs in is refused while they have no password and no linked provider (``OwnerSignInWays``). The
///   operator's `owner set-password` gives a password back.
/// - `GET /owner/assets/passkeys.js`: ``OwnerPasskeyScript``.
///
/// Every ceremony counts in `postern_passkey_ceremonies_total` and lands on the audit trail: a sign-in as
/// `owner.signin` (details `{"method":"passkey"}`), a refusal as `owner.signin_failed` (actor `passkey`, details the
/// reason, never shown to the browser), a counter that went back as `passkey.possibly_cloned` on the holder's trail,
/// registrations, renames and removals as `passkey.added|renamed|removed`.
extension OwnerService {
    /// What every refused passkey ceremony says: which check failed is for the audit trail only.
    static let passkeyRefused = "That passkey could not be used. Try again, or sign in another way."
    /// The throttle's namespace (``SignInThrottle/keys(name:client:namespace:)``).
    static let passkeyThrottleNamespace = "owner-passkey"

    func registerPasskeys(into router: inout ContextRouter) {
        let limit = configuration.bodyLimit
        if passkeyStore != nil {
            router.add(
                .POST, "/owner/password/remove", bodyLimit: limit,
                ownerContextRoute(page: "/owner", title: "Passkeys", removePassword))
            router.add(
                .POST, "/owner/passkeys/{passkeyId}/rename", bodyLimit: limit,
                ownerRoute(page: "/owner", title: "Passkeys", renamePasskey))
            router.add(
                .POST, "/owner/passkeys/{passkeyId}/remove", bodyLimit: limit,
                ownerRoute(page: "/owner", title: "Passkeys", removePasskey))
        }
        guard passkeys != nil else { return }
        pages.addPasskeySignIn(
            to: &router, script: OwnerPasskeyScript.script, path: "/owner/sign-in/passkey", bodyLimit: limit,
            options: { [self] in try await signInOptions($0) },
            signIn: { [self] in try await passkeySignIn($0, client: $1, address: $2) })
        router.add(
            .POST, "/owner/passkeys/options", bodyLimit: limit,
            ownerRoute(page: "/owner", title: "Passkeys") { [self] _, _, owner, _ in
                try await registrationOptions(owner)
            })
        router.add(.POST, "/owner/passkeys", bodyLimit: limit, ownerRoute(page: "/owner", title: "Passkeys", addPasskey))
    }

    // MARK: - Sign-in

    func signInOptions(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let passkeys, browser.csrfValid(request.formFields(), request) else {
            return HTTPResponse.noStoreJSON(.forbidden, ["error": "csrf"])
        }
        do {
            return HTTPResponse.noStoreJSON(.ok, try await passkeys.signInOptions(now: browser.sessions.clock()))
        } catch is PasskeyChallengesFull {
            return HTTPResponse.noStoreJSON(.serviceUnavailable, ["error": "busy"])
        }
    }

    func passkeySignIn(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws -> HTTPResponse {
        let fields = request.formFields()
        var page = signInForm(next: Self.localPath(fields["next"]))
        guard let passkeys else { return form(.notFound, request, page) }
        guard browser.csrfValid(fields, request) else {
            page.error = OwnerMessage.csrf
            return form(.forbidden, request, page)
        }
        let now = browser.sessions.clock()
        let attempt = try await PasskeySignInAttempt(
            credential: fields["credential"], client: client, namespace: Self.passkeyThrottleNamespace,
            throttle: passkeyThrottle, now: now)
        if attempt.retryAfter > 0 {
            passkeyCeremonies("sign_in", "slowed")
            signIns("slowed")
            await recordRefusedPasskey(reason: "slowed", client: address)
            page.error = Self.passkeyRefused
            var answer = form(.tooManyRequests, request, page)
            answer.headers.setRetryAfter(seconds: Int(attempt.retryAfter))
            return answer
        }
        do {
            let credential = try await passkeys.signIn(attempt.response, now: now)
            guard case .owner(let ownerID) = credential.holder, let owner = try await owners.owner(id: ownerID) else {
                // A Pro user's passkey at the owners' door: theirs is /inbox/sign-in.
                throw PasskeyRefusal.unknownCredential
            }
            try await passkeyThrottle.succeeded(attempt.keys)
            passkeyCeremonies("sign_in", "success")
            signIns("success")
            let answer = try await startSession(owner, request, next: page.next)
            await audit.owner(
                owner.id, .ownerSignIn, target: owner.email, client: address,
                details: AuditDetails.json(["method": "passkey", "passkey": credential.id]))
            return answer
        } catch let refusal as PasskeyRefusal {
            try await passkeyThrottle.failed(attempt.keys, now: now)
            signIns("refused")
            if case .possiblyCloned(let credential) = refusal {
                passkeyCeremonies("sign_in", "possibly_cloned")
                if case .owner(let ownerID) = credential.holder {
                    await audit.owner(
                        ownerID, .passkeyPossiblyCloned, target: credential.name, client: address,
                        details: AuditDetails.json(["passkey": credential.id]))
                }
            } else {
                passkeyCeremonies("sign_in", "refused")
            }
            await recordRefusedPasskey(reason: refusal.reason, client: address)
            page.error = Self.passkeyRefused
            return form(.unauthorized, request, page)
        }
    }

    /// `owner.signin_failed` with the actor `passkey` (no email was typed) and the reason in the details.
    private func recordRefusedPasskey(reason: String, client: String?) async {
        await audit.record {
            AuditEvent(
                time: $0, actorKind: .owner, actorID: "passkey", ownerID: nil, action: .ownerSignInFailed,
                target: "passkey", clientAddress: client, details: AuditDetails.json(["reason": reason]))
        }
    }

    // MARK: - Registration and the owner's passkeys

    func registrationOptions(_ owner: Owner) async throws -> HTTPResponse {
        guard let passkeys else { return HTTPResponse.noStoreJSON(.notFound, ["error": "not_found"]) }
        let options = try await passkeys.registrationOptions(
            for: .owner(owner.id), name: owner.email, now: browser.sessions.clock())
        return HTTPResponse.noStoreJSON(.ok, options)
    }

    func addPasskey(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner, _ client: String?) async throws
        -> HTTPResponse
    {
        guard let passkeys else { return flash(.passkeyRefused) }
        let fields = request.formFields()
        do {
            let passkey = try await passkeys.register(
                Array((fields["credential"] ?? "").utf8), for: .owner(owner.id), name: fields["name"] ?? "",
                now: browser.sessions.clock())
            passkeyCeremonies("registration", "success")
            await audit.owner(
                owner.id, .passkeyAdded, target: passkey.name, client: client,
                details: AuditDetails.json(["passkey": passkey.id, "synced": passkey.backupEligible ? "yes" : "no"]))
            return flash(.passkeyAdded)
        } catch let refusal as PasskeyRefusal {
            passkeyCeremonies("registration", "refused")
            return flash(refusal == .invalidName ? .invalidPasskeyName : .passkeyRefused)
        }
    }

    func renamePasskey(_ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?)
        async throws -> HTTPResponse
    {
        let id = parameters["passkeyId"] ?? ""
        let name = request.formFields()["name"] ?? ""
        guard let passkeyStore else { return flash(.unknownPasskey) }
        do {
            guard try await passkeyStore.rename(id, of: .owner(owner.id), to: name) else { return flash(.unknownPasskey) }
        } catch PasskeyStoreError.invalidName {
            return flash(.invalidPasskeyName)
        }
        await audit.owner(
            owner.id, .passkeyRenamed, target: name.trimmingCharacters(in: .whitespacesAndNewlines), client: client,
            details: AuditDetails.json(["passkey": id]))
        return flash(.passkeyRenamed)
    }

    func removePasskey(_ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?)
        async throws -> HTTPResponse
    {
        let id = parameters["passkeyId"] ?? ""
        let holder = PasskeyHolder.owner(owner.id)
        guard let passkeyStore else { return flash(.unknownPasskey) }
        let held = try await passkeyStore.credentials(of: holder)
        guard let passkey = held.first(where: { $0.id == id }) else { return flash(.unknownPasskey) }
        // The last way in (no password, no other passkey that signs in, no linked provider) stays.
        guard try await signInWays(of: owner.id).keepsAWayIn(without: .passkey(id: id)) else {
            return lastWayFlash()
        }
        guard try await passkeyStore.remove(id, of: holder) else { return flash(.unknownPasskey) }
        await audit.owner(
            owner.id, .passkeyRemoved, target: passkey.name, client: client,
            details: AuditDetails.json(["passkey": id]))
        return flash(.passkeyRemoved)
    }

    /// `POST /owner/password/remove` (`password`, to confirm): only for an owner left another way in (a passkey that
    /// signs in or a linked provider, ``OwnerSignInWays``).
    func removePassword(_ request: HTTPRequest, _: RouteParameters, _ owner: Owner, _ context: RequestContext)
        async throws -> HTTPResponse
    {
        guard try await signInWays(of: owner.id).keepsAWayIn(without: .password) else { return lastWayFlash() }
        let password = request.formFields()["password"] ?? ""
        switch try await owners.removePassword(of: owner, password: password, client: context.clientKey) {
        case .removed:
            await audit.owner(
                owner.id, .ownerPasswordRemoved, target: owner.email, client: context.clientAddress?.description)
            return flash(.passwordRemoved)
        case .wrongPassword: return flash(.wrongPassword)
        case .slowDown: return flash(.slowed)
        }
    }

    private func flash(_ notice: OwnerSignInMethodsFlash) -> HTTPResponse {
        HTMLPage.redirect(to: "/owner", setCookies: [browser.flashCookie(notice.rawValue)])
    }

    /// The change would leave the owner no way in: the notice shared with unlinking a provider.
    func lastWayFlash() -> HTTPResponse { flash(.lastWay) }
}

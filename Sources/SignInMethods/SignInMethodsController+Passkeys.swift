import Audit
import AuthCrypto
import BrowserPages
import ClientAddress
import HTTP1
import Passkeys
import ServerKit

/// Passkeys over HTTP (issue 56), for every family through ``PasskeyCeremonies``:
/// - `POST <passkeySignIn>/options` (the pre-session CSRF token) answers the sign-in's options as JSON;
///   `POST <passkeySignIn>` (`credential`) signs in as the password form does (the family's new session), or answers
///   its sign-in page with one generic message (401), or, slowed, 429 with `Retry-After`. Throttled as the password is
///   (``SignInThrottle``, the family's namespace), by the credential id and the client's address. Another family's
///   passkey is an unknown one.
/// - Signed in: `POST <passkeys>/options` answers the registration's options; `POST <passkeys>` (`credential`,
///   `name`) stores the passkey, both only on a session whose sign-in is recent (``SignInFamily/freshProof``, issue 66 item 4:
///   else a 403 `{"error":"proof_needed"}` and the ``SignInNotice/proofNeeded`` notice); `.../{passkeyId}/rename` (`name`) and `.../{passkeyId}/remove`. Each answers with the
///   family's notice. A passkey that is not the account's is an unknown one.
/// - `POST <passwordRemoval>` (`password`, to confirm): an account left another way in (a passkey that signs in or a
///   linked provider, ``SignInWays``) removes its password, under the password sign-in's backoff; removing the last
///   passkey that signs in is refused while there is no password and no linked provider.
///
/// Every ceremony counts in `postern_passkey_ceremonies_total` and lands on the audit trail with the account as the
/// actor: a sign-in (`{"method":"passkey"}`), a refusal as the family's `signin_failed` (actor `passkey`, the reason
/// in the details, never shown), a counter that went back as `passkey.possibly_cloned`, `passkey.added|renamed|removed`
/// and the family's `password_removed`.
extension SignInMethodsController {
    /// Adds the passkey routes this mount has parts for: rename, remove and the password's removal with a store; the
    /// sign-in, the registration and its options with ceremonies.
    public func registerPasskeys(into router: inout ContextRouter, bodyLimit limit: Int) {
        let paths = family.paths
        if passkeyStore != nil {
            router.add(
                .POST, paths.passwordRemoval, bodyLimit: limit,
                family.signedInRoute(.passkeys) { call in try await removePassword(call) })
            router.add(
                .POST, paths.passkeys + "/{passkeyId}/rename", bodyLimit: limit,
                family.signedInRoute(.passkeys) { call in try await renamePasskey(call) })
            router.add(
                .POST, paths.passkeys + "/{passkeyId}/remove", bodyLimit: limit,
                family.signedInRoute(.passkeys) { call in try await removePasskey(call) })
        }
        guard ceremonies != nil else { return }
        family.pages.addPasskeySignIn(
            to: &router, script: paths.passkeyScript, path: paths.passkeySignIn, bodyLimit: limit,
            options: { request, client in try await signInOptions(request, client: client) },
            signIn: { request, client, address in try await passkeySignIn(request, client: client, address: address) })
        router.add(
            .POST, paths.passkeys + "/options", bodyLimit: limit,
            family.signedInRoute(.passkeys) { call in try await registrationOptions(call) })
        router.add(
            .POST, paths.passkeys, bodyLimit: limit, family.signedInRoute(.passkeys) { call in try await addPasskey(call) })
    }

    // MARK: - Sign-in

    func signInOptions(_ request: HTTPRequest, client: ClientAddressKey) async throws -> HTTPResponse {
        guard let ceremonies, family.forms.csrfValid(request.formFields(), request) else {
            return HTTPResponse.noStoreJSON(.forbidden, ["error": "csrf"])
        }
        do {
            return HTTPResponse.noStoreJSON(
                .ok, try await ceremonies.signInOptions(client: client.description, now: family.now()))
        } catch is PasskeyChallengesFull {
            return HTTPResponse.noStoreJSON(.serviceUnavailable, ["error": "busy"])
        }
    }

    func passkeySignIn(_ request: HTTPRequest, client: ClientAddressKey, address: String?) async throws
        -> HTTPResponse
    {
        let fields = request.formFields()
        guard let ceremonies else { return family.signInPage(.notFound, request, error: Self.passkeyRefused) }
        guard family.forms.csrfValid(fields, request) else {
            return family.signInPage(.forbidden, request, error: family.csrfMessage)
        }
        let now = family.now()
        let throttle = family.passkeyThrottle
        let attempt = try await PasskeySignInAttempt(
            credential: fields["credential"], client: client, namespace: family.paths.passkeyThrottleNamespace,
            throttle: throttle, now: now)
        if attempt.retryAfter > 0 {
            onCeremony("sign_in", "slowed")
            family.countSignIn("slowed")
            await recordRefusal(actor: "passkey", reason: "slowed", client: address)
            var answer = family.signInPage(.tooManyRequests, request, error: Self.passkeyRefused)
            answer.headers.setRetryAfter(seconds: Int(attempt.retryAfter))
            return answer
        }
        do {
            let credential = try await ceremonies.signIn(attempt.response, now: now)
            // Another family's passkey at this door, or an account that may no longer sign in, is refused as an
            // unknown passkey.
            guard let account = family.account(of: credential.holder),
                let session = try await family.startSession(account, request, by: .passkey, setCookies: [])
            else { throw PasskeyRefusal.unknownCredential }
            try await throttle.succeeded(attempt.keys)
            onCeremony("sign_in", "success")
            family.countSignIn("success")
            await record(
                account, family.actor.signIn, target: session.auditTarget, client: address,
                details: AuditDetails.json(["method": "passkey", "passkey": credential.id]))
            return session.response
        } catch let refusal as PasskeyRefusal {
            try await throttle.failed(attempt.keys, now: now)
            family.countSignIn("refused")
            if case .possiblyCloned(let credential) = refusal {
                onCeremony("sign_in", "possibly_cloned")
                if let account = family.account(of: credential.holder) {
                    await record(
                        account, .passkeyPossiblyCloned, target: credential.name, client: address,
                        details: AuditDetails.json(["passkey": credential.id]))
                }
            } else {
                onCeremony("sign_in", "refused")
            }
            await recordRefusal(actor: "passkey", reason: refusal.reason, client: address)
            return family.signInPage(.unauthorized, request, error: Self.passkeyRefused)
        }
    }

    // MARK: - The account's passkeys

    func registrationOptions(_ call: Family.Call) async throws -> HTTPResponse {
        guard let ceremonies else { return HTTPResponse.noStoreJSON(.notFound, ["error": "not_found"]) }
        // The script then posts the form without a credential, and the registration answers with the notice.
        guard try await hasFreshProof(call.request) else {
            return HTTPResponse.noStoreJSON(.forbidden, ["error": "proof_needed"])
        }
        let options = try await ceremonies.registrationOptions(
            for: family.passkeyHolder(call.account), name: call.label, now: family.now())
        return HTTPResponse.noStoreJSON(.ok, options)
    }

    func addPasskey(_ call: Family.Call) async throws -> HTTPResponse {
        guard let ceremonies else { return try await family.notice(.passkeyRefused, call) }
        guard try await hasFreshProof(call.request) else {
            onCeremony("registration", "proof_needed")
            return try await family.notice(.proofNeeded, call)
        }
        let fields = call.request.formFields()
        if fields["failure"] == PasskeyPageParts.alreadyRegisteredFailure {
            onCeremony("registration", "refused")
            return try await family.notice(.passkeyAlreadyOnDevice, call)
        }
        do {
            let passkey = try await ceremonies.register(
                Array((fields["credential"] ?? "").utf8), for: family.passkeyHolder(call.account),
                name: fields["name"] ?? "", now: family.now())
            onCeremony("registration", "success")
            await record(
                call.account, .passkeyAdded, target: passkey.name, client: call.client,
                details: AuditDetails.json(["passkey": passkey.id, "synced": passkey.backupEligible ? "yes" : "no"]))
            return try await family.notice(.passkeyAdded, call)
        } catch let refusal as PasskeyRefusal {
            onCeremony("registration", "refused")
            return try await family.notice(refusal == .invalidName ? .invalidPasskeyName : .passkeyRefused, call)
        }
    }

    func renamePasskey(_ call: Family.Call) async throws -> HTTPResponse {
        let id = call.parameters["passkeyId"] ?? ""
        let name = call.request.formFields()["name"] ?? ""
        guard let passkeyStore else { return try await family.notice(.unknownPasskey, call) }
        do {
            guard try await passkeyStore.rename(id, of: family.passkeyHolder(call.account), to: name) else {
                return try await family.notice(.unknownPasskey, call)
            }
        } catch PasskeyStoreError.invalidName {
            return try await family.notice(.invalidPasskeyName, call)
        }
        await record(
            call.account, .passkeyRenamed, target: name.trimmingCharacters(in: .whitespacesAndNewlines),
            client: call.client, details: AuditDetails.json(["passkey": id]))
        return try await family.notice(.passkeyRenamed, call)
    }

    /// A passkey goes unless it is the account's last way in (``SignInWays``).
    func removePasskey(_ call: Family.Call) async throws -> HTTPResponse {
        let id = call.parameters["passkeyId"] ?? ""
        let holder = family.passkeyHolder(call.account)
        guard let passkeyStore,
            let passkey = try await passkeyStore.credentials(of: holder).first(where: { $0.id == id })
        else { return try await family.notice(.unknownPasskey, call) }
        guard try await ways(of: call.account).keepsAWayIn(without: .passkey(id: id)) else {
            return try await family.notice(.lastWay, call)
        }
        guard try await passkeyStore.remove(id, of: holder) else { return try await family.notice(.unknownPasskey, call) }
        await record(
            call.account, .passkeyRemoved, target: passkey.name, client: call.client,
            details: AuditDetails.json(["passkey": id]))
        return try await family.notice(.passkeyRemoved, call)
    }

    /// `POST <passwordRemoval>` (`password`, to confirm): only for an account left another way in. The password is
    /// checked under the password sign-in's backoff, by the same name: a session is no way around it.
    func removePassword(_ call: Family.Call) async throws -> HTTPResponse {
        guard try await ways(of: call.account).keepsAWayIn(without: .password) else {
            return try await family.notice(.lastWay, call)
        }
        switch try await family.removePassword(call, password: call.request.formFields()["password"] ?? "") {
        case .passed:
            await record(call.account, family.actor.passwordRemoved, target: call.label, client: call.client)
            return try await family.notice(.passwordRemoved, call)
        case .failed: return try await family.notice(.wrongPassword, call)
        case .slowed(let seconds): return try await family.notice(.slowed(seconds), call)
        }
    }
}

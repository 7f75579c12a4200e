import Audit
import BrowserPages
import HTTP1
import Passkeys
import ServerKit
import SignInProviders

/// Sign-in methods, written once for every family (issue 67 item 1): passkey sign-in, registration, rename, removal
/// under the last-way rule and the password's removal (``SignInMethodsController+Passkeys``); a provider's start,
/// refusal, completion, the password question of a pending link, unlink and the failure record
/// (``SignInMethodsController+Providers``). Mounted for owners (`Owners`) and Pro users (`WebInbox`) through
/// ``SignInFamily``; no other target runs a ceremony or the provider flow (`scripts/check-imports`).
public struct SignInMethodsController<Family: SignInFamily>: Sendable {
    /// The family this mount serves.
    public let family: Family
    /// Passkeys listed, renamed and removed; nil: none is shown.
    public let passkeyStore: PasskeyStore?
    /// The passkey ceremonies; nil: no passkey is offered (no RP ID), those stored before are still listed.
    public let ceremonies: PasskeyCeremonies?
    /// The providers' flow; nil: no provider route.
    public let flow: SignInFlow?
    /// The linked identities, shown and counted as ways in; nil counts none.
    public let identities: SignInIdentityStore?
    /// Where every ceremony, link, unlink, sign-in and refusal is recorded.
    public let audit: AuditTrail
    /// `postern_passkey_ceremonies_total`: told the ceremony (`registration`, `sign_in`) and its result.
    let onCeremony: @Sendable (_ ceremony: String, _ result: String) -> Void

    /// What every refused passkey sign-in says: which check failed is for the audit trail only.
    public static var passkeyRefused: String { "That passkey could not be used. Try again, or sign in another way." }
    /// The provider pages' title.
    static var providerTitle: String { "Sign in with a provider" }

    /// - Parameters:
    ///   - family: the port of the family mounted.
    ///   - passkeyStore: the passkeys; nil shows none.
    ///   - ceremonies: the ceremonies over that store; nil offers none.
    ///   - flow: the providers and their logins; nil offers none.
    ///   - identities: the linked identities; nil counts none.
    ///   - audit: the audit trail.
    ///   - onCeremony: the ceremonies' counter.
    public init(
        family: Family, passkeyStore: PasskeyStore?, ceremonies: PasskeyCeremonies?, flow: SignInFlow?,
        identities: SignInIdentityStore?, audit: AuditTrail,
        onCeremony: @escaping @Sendable (_ ceremony: String, _ result: String) -> Void
    ) {
        self.family = family
        self.passkeyStore = passkeyStore
        self.ceremonies = ceremonies
        self.flow = flow
        self.identities = identities
        self.audit = audit
        self.onCeremony = onCeremony
    }

    /// `account`'s ways in, read now: their password, their passkeys that sign in (not one marked as possibly cloned)
    /// and their linked providers.
    /// - Throws: storage errors.
    public func ways(of account: String) async throws -> SignInWays {
        let passkeys = try await passkeyStore?.credentials(of: family.passkeyHolder(account)) ?? []
        return SignInWays(
            hasPassword: try await family.hasPassword(account),
            passkeys: passkeys.filter { $0.clonedAt == nil }.map(\.id),
            identities: try await identities?.identities(surface: family.paths.surface, account: account) ?? [])
    }

    /// Whether `request`'s session was opened by a proof within the family's ``SignInFamily/freshProof``: a passkey is
    /// added and a provider linked only then (issue 66 item 4), and the family's own credentials are made only then; a
    /// session that is older signs in again first. A stolen session cookie alone adds no way in.
    /// - Throws: storage errors.
    public func hasFreshProof(_ request: HTTPRequest) async throws -> Bool {
        family.freshProof.holds(provenAt: try await family.lastProof(request), now: family.now())
    }

    /// `account`'s passkeys, as "Sign-in methods" lists them; nil when none is shown here.
    public func passkeys(of account: String) async throws -> [PasskeyCredential]? {
        try await passkeyStore?.credentials(of: family.passkeyHolder(account))
    }

    /// Records `action` of `account` on the trail.
    func record(
        _ account: String, _ action: AuditAction, target: String, client: String?, details: String? = nil
    ) async {
        await audit.record {
            family.actor.event(account, action, target: target, client: client, details: details, time: $0)
        }
    }

    /// A refused sign-in on the operator's trail: `actor` (`passkey`, `oidc:<provider>`) and the reason; never a
    /// credential, code, token or state.
    func recordRefusal(actor: String, reason: String, detail: String? = nil, client: String?) async {
        let details =
            detail.map { AuditDetails.json(["reason": reason, "detail": $0]) } ?? AuditDetails.json(["reason": reason])
        await audit.record {
            AuditEvent(
                time: $0, actorKind: family.actor.kind, actorID: actor, ownerID: nil, action: family.actor.signInFailed,
                target: actor, clientAddress: client, details: details)
        }
    }
}

import Audit
import BrowserPages
import EmbeddedResources
import Passkeys

/// What the web inbox needs to offer Pro users passkeys (issue 56): the ceremonies the owner pages run too (one relying
/// party, one store, one table of challenges), the audit trail, and the `postern_passkey_ceremonies_total` counter.
public struct WebInboxPasskeys: Sendable {
    /// The ceremonies.
    public let ceremonies: PasskeyCeremonies
    /// Where registrations, sign-ins, refusals, renames, removals and cloned counters are recorded.
    public let audit: AuditTrail
    /// Told of every ceremony that ends: its name (`registration`, `sign_in`) and result.
    public let onCeremony: @Sendable (_ ceremony: String, _ result: String) -> Void

    /// Memberwise.
    public init(
        ceremonies: PasskeyCeremonies, audit: AuditTrail = .disabled,
        onCeremony: @escaping @Sendable (_ ceremony: String, _ result: String) -> Void = { _, _ in }
    ) {
        self.ceremonies = ceremonies
        self.audit = audit
        self.onCeremony = onCeremony
    }

    /// The passkey forms' script (`passkeys.js`, the owner pages' too) at the web inbox's own path, under
    /// `script-src 'self'`.
    static let script = PageScript(path: "/inbox/assets/passkeys.js", bytes: EmbeddedResources.passkeysScript.bytes)
}

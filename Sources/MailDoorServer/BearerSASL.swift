import Base64Coding
import SASL

/// The OAuth mechanisms IMAP's `AUTHENTICATE` and POP3's `AUTH` share, one step at a time: `OAUTHBEARER` (RFC 7628)
/// and `XOAUTH2`. It only decodes: the token goes to the one sign-in port (``MailDoorSignIn``), whose check, backoff
/// and audit are the same whichever protocol asked; each protocol's driver turns the port's answer into its own reply.
package enum BearerSASL {
    /// The mechanisms, as each protocol offers them.
    package static let mechanisms = ["OAUTHBEARER", "XOAUTH2"]

    /// What one client message came to.
    package enum Step: Sendable, Equatable {
        /// Send this challenge (the empty one, when the client sent no initial response) and wait.
        case challenge(SASLMessage)
        /// The exchange is complete: check this token.
        case bearer(SASLBearer)
        /// Base64 of no OAuth message: refused with ``errorChallenge(_:)`` of `invalid_token`, no token checked.
        case malformed
        /// Not base64: a failed sign-in.
        case notBase64
    }

    /// The step of an `OAUTHBEARER` or `XOAUTH2` exchange; nil for any other mechanism.
    package static func step(_ step: SASLStep) -> Step? {
        guard mechanisms.contains(step.mechanism) else { return nil }
        guard let bytes = step.response.base64.isEmpty ? [] : Base64.decode(step.response.base64) else {
            return .notBase64
        }
        if step.isFirst && bytes.isEmpty { return .challenge(SASLMessage(base64: "")) }
        let bearer = step.mechanism == "XOAUTH2" ? SASLBearer(xoauth2: bytes) : SASLBearer(oauthBearer: bytes)
        return bearer.map(Step.bearer) ?? .malformed
    }

    /// RFC 7628 §3.2.2's error: the status and the scope a mail session needs (no `openid-configuration`: the
    /// discovery document is at the issuer's `/.well-known/oauth-authorization-server`, which the client already used).
    package static func errorChallenge(_ refusal: MailTokenRefusal) -> SASLMessage {
        let status = refusal == .insufficientScope ? "insufficient_scope" : "invalid_token"
        return SASLMessage(base64: Base64.encode(Array(#"{"status":"\#(status)","scope":"mail.read"}"#.utf8)))
    }
}

import Base64Coding

/// The OAuth mechanisms every mail door shares, one step at a time: `OAUTHBEARER` (RFC 7628) and `XOAUTH2`, for
/// IMAP's `AUTHENTICATE`, POP3's `AUTH` and the submission listener's `AUTH`. It only decodes: the token goes to whoever
/// signs in, whose check, backoff and audit are the same whichever protocol asked; each protocol's driver turns the
/// answer into its own reply.
public enum BearerSASL {
    /// The mechanisms, as each protocol offers them.
    public static let mechanisms = ["OAUTHBEARER", "XOAUTH2"]

    /// What one client message came to.
    public enum Step: Sendable, Equatable {
        /// Send this challenge (the empty one, when the client sent no initial response) and wait.
        case challenge(SASLMessage)
        /// The exchange is complete: check this token.
        case bearer(SASLBearer)
        /// Base64 of no OAuth message: refused with ``errorChallenge(_:scope:)`` of `invalid_token`, no token checked.
        case malformed
        /// Not base64: a failed sign-in.
        case notBase64
    }

    /// RFC 7628 §3.2.2's `status`.
    public enum Status: String, Sendable {
        /// Expired, revoked, forged, for another resource, or not the holder of the mailbox named.
        case invalidToken = "invalid_token"
        /// Valid, but without the scope the door needs.
        case insufficientScope = "insufficient_scope"
    }

    /// The step of an `OAUTHBEARER` or `XOAUTH2` exchange; nil for any other mechanism.
    public static func step(_ step: SASLStep) -> Step? {
        guard mechanisms.contains(step.mechanism) else { return nil }
        guard let bytes = step.response.base64.isEmpty ? [] : Base64.decode(step.response.base64) else {
            return .notBase64
        }
        if step.isFirst && bytes.isEmpty { return .challenge(SASLMessage(base64: "")) }
        let bearer = step.mechanism == "XOAUTH2" ? SASLBearer(xoauth2: bytes) : SASLBearer(oauthBearer: bytes)
        return bearer.map(Step.bearer) ?? .malformed
    }

    /// RFC 7628 §3.2.2's error: the status and the scope the door needs (`mail.read` to read, `mail.send` to submit;
    /// no `openid-configuration`: the discovery document is at the issuer's `/.well-known/oauth-authorization-server`,
    /// which the client already used).
    public static func errorChallenge(_ status: Status, scope: String) -> SASLMessage {
        SASLMessage(base64: Base64.encode(Array(#"{"status":"\#(status.rawValue)","scope":"\#(scope)"}"#.utf8)))
    }
}

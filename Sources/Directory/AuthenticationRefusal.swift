import JSON

/// Why a credential that is of a kind an authenticator handles does not open what it asks for, when that must be
/// answered with more than a bare 401: each surface renders it in its own shape (the OAuth
/// `{"error","error_description"}` pair with `WWW-Authenticate` for JMAP and `/api/v1/agents`, JSON-RPC for MCP).
/// Never carries a secret or an internal detail.
public struct AuthenticationRefusal: Error, Sendable, Equatable {
    /// The refusals of the contract's error table (`api-docs/oauth-mcp-contract.md` 1.13).
    public enum Kind: Sendable, Equatable {
        /// 401 `invalid_token`: expired, forged, for another audience or issuer, or its grant revoked.
        case invalidToken
        /// 403 `insufficient_scope`: the grant lacks `required` (`mail.read` or `mail.send`).
        case insufficientScope(required: MailPermissions)
        /// 403 `access_denied`: the inbox named is not the grant owner's (or not the token's bound inbox).
        case accessDenied
        /// 400 in the agent error shape: `X-Atomic-Account-Id` is missing or not a UUID.
        case accountHeader
    }

    /// What was refused.
    public let kind: Kind
    /// A sentence for the client: what was wrong and how to go on.
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The HTTP status the contract gives the refusal.
    public var status: Int {
        switch kind {
        case .invalidToken: 401
        case .insufficientScope, .accessDenied: 403
        case .accountHeader: 400
        }
    }

    /// The OAuth `error` code (RFC 6750 section 3.1, the contract's table); `invalid_request` for the header.
    public var code: String {
        switch kind {
        case .invalidToken: "invalid_token"
        case .insufficientScope: "insufficient_scope"
        case .accessDenied: "access_denied"
        case .accountHeader: "invalid_request"
        }
    }

    /// The `WWW-Authenticate` challenge of a 401 or an `insufficient_scope` 403 (RFC 6750 section 3), with
    /// `extra` parameters appended (`resource_metadata="…"` on MCP); nil for the other refusals.
    public func challenge(extra: String? = nil) -> String? {
        var parameters: String
        switch kind {
        case .invalidToken: parameters = "error=\"invalid_token\""
        case .insufficientScope(let required): parameters = "error=\"insufficient_scope\", scope=\"\(required.scope)\""
        case .accessDenied, .accountHeader: return nil
        }
        if let extra { parameters += ", " + extra }
        return "Bearer " + parameters
    }
}

extension AuthenticationRefusal {
    /// The `/llms.txt` section that explains the OAuth path (`docs_url` of the agent-shaped 400).
    public static let docsAnchor = "using-an-oauth-access-token"

    /// The response body in the contract's shape: `{"error":{"message","hint","docs_url"}}` (the agent shape) for a
    /// bad `X-Atomic-Account-Id`, `{"error","error_description"}` (RFC 6750) for the others.
    /// - Parameter publicURL: the base URL `docs_url` starts with (no trailing slash).
    public func body(publicURL: String) -> JSONValue {
        guard kind == .accountHeader else {
            return .object([("error", .string(code)), ("error_description", .string(description))])
        }
        return .object([
            (
                "error",
                .object([
                    ("message", .string("X-Atomic-Account-Id is missing or not a UUID")),
                    ("hint", .string(description)),
                    ("docs_url", .string(publicURL + "/llms.txt#" + Self.docsAnchor)),
                ])
            )
        ])
    }
}

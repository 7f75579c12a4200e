import ServerKit

/// Every refusal the agent surface answers with, in the shape
/// `{"error":{"message","hint","docs_url"}}` (CONTRACT.md 1.4).
///
/// `docs_url` is `<public URL>/llms.txt#<anchor>`; every anchor is a heading of ``AgentLLMsText``.
public struct AgentAuthError: Error, Sendable, Equatable {
    /// HTTP status code of the response.
    public let status: Int
    /// What failed; the exact contract text where the contract gives one.
    public let message: String
    /// How to fix the request and retry.
    public let hint: String
    /// Section of `/llms.txt` that explains the failure (without `#`).
    public let anchor: String

    /// 401: missing, forged, tampered, expired, wrong-purpose or already used challenge.
    public static let invalidChallenge = AgentAuthError(
        status: 401, message: "Invalid or expired challenge",
        hint: "Request a fresh challenge from POST /api/v1/challenge, solve PoW again, and retry.",
        anchor: "auth-flow-reference")
    /// 400: the body is not a JSON object, or a field has the wrong type.
    public static let malformedBody = AgentAuthError(
        status: 400, message: "Request body must be a JSON object with powHex, nonce and username or apiKey",
        hint: "Send Content-Type: application/json with {\"powHex\",\"nonce\",\"username\"} to sign up or "
            + "{\"powHex\",\"nonce\",\"apiKey\"} to log in, then retry with the same challenge.",
        anchor: "session")
    /// 400: both or neither of `username` and `apiKey`.
    public static let usernameXorAPIKey = AgentAuthError(
        status: 400, message: "Send exactly one of username or apiKey",
        hint: "Include username to create a new account or apiKey to log in to an existing one, not both; "
            + "retry with the same challenge.",
        anchor: "session")
    /// 400: `nonce` is missing or not a decimal number.
    public static let invalidNonce = AgentAuthError(
        status: 400, message: "nonce must be a decimal string",
        hint: "Send the nonce you solved with as a decimal string such as \"51\" (a non-negative JSON integer "
            + "is accepted too), then retry with the same challenge.",
        anchor: "proof-of-work")
    /// 400: `powHex` is missing or not 128 hex characters.
    public static let invalidPowHex = AgentAuthError(
        status: 400, message: "powHex must be 128 hexadecimal characters",
        hint: "Send the lowercase hex of the 64-byte scrypt output for \"<challenge>:<nonce>\" (<challenge>: the "
            + "challenge response's `challenge` field, the JWT's jti), then retry with the same challenge.",
        anchor: "proof-of-work")
    /// 400: `powHex` has fewer leading zero bits than the challenge's difficulty.
    public static let insufficientWork = AgentAuthError(
        status: 400, message: "Proof of work does not meet the challenge difficulty",
        hint: "Keep incrementing the nonce until the scrypt output starts with at least `difficulty` zero bits "
            + "(the difficulty is in the challenge JWT and the challenge response), then retry with the same "
            + "challenge.",
        anchor: "proof-of-work")
    /// 401: the recomputed scrypt output differs from `powHex`.
    public static let powMismatch = AgentAuthError(
        status: 401, message: "Proof of work does not match the challenge",
        hint: "Compute scrypt over the UTF-8 bytes of \"<challenge>:<nonce>\", where <challenge> is the "
            + "`challenge` field of the challenge response (the challenge JWT's jti claim, not the JWT itself), "
            + "with the UTF-8 bytes of the salt text (not its decoded hex), N=16384, r=8, p=1, dkLen=64. The "
            + "challenge is used up: request a fresh one from POST /api/v1/challenge and solve it again.",
        anchor: "proof-of-work")
    /// 400: the username breaks the pattern.
    public static let invalidUsername = AgentAuthError(
        status: 400, message: "Invalid username",
        hint: "Use 5 to 21 characters: lowercase letters, digits, '.', '_' or '-', starting and ending with a "
            + "letter or digit. Request a fresh challenge, solve it, and retry.",
        anchor: "usernames")
    /// 400: the username is reserved.
    public static let reservedUsername = AgentAuthError(
        status: 400, message: "Username is reserved",
        hint: "Role names such as admin, postmaster and support cannot be registered; choose another username, "
            + "request a fresh challenge, solve it, and retry.",
        anchor: "usernames")
    /// 409: another account has the username.
    public static let usernameTaken = AgentAuthError(
        status: 409, message: "Username already taken",
        hint: "Choose another username, or log in with the apiKey you received when you signed up. Request a "
            + "fresh challenge first.",
        anchor: "usernames")
    /// 401: no live account has this API key.
    public static let invalidAPIKey = AgentAuthError(
        status: 401, message: "Invalid API key",
        hint: "Send the apiKey returned once at signup. If it is lost or revoked, sign up again with a new "
            + "username. Request a fresh challenge first.",
        anchor: "api-keys")
    /// 401: the capability bearer is not a live session JWT.
    public static let invalidSession = AgentAuthError(
        status: 401, message: "Invalid or expired session",
        hint: "Create a new session at POST /api/v1/session (challenge, PoW, apiKey) and present its JWT as "
            + "Authorization: Bearer.",
        anchor: "capability")
    /// 503: the proof-of-work workers are saturated.
    public static let overloaded = AgentAuthError(
        status: 503, message: "Server is busy",
        hint: "Wait a few seconds, request a fresh challenge, solve it, and retry.",
        anchor: "errors")
    /// 429: this client address asked too often; the response carries `Retry-After`.
    public static let tooManyRequests = AgentAuthError(
        status: 429, message: "Too many requests",
        hint: "This address sent too many requests to this endpoint in the last minute; wait the seconds in "
            + "Retry-After, then retry.",
        anchor: "errors")
    /// 503: the database cannot answer right now.
    public static let unavailable = AgentAuthError(
        status: 503, message: "Service temporarily unavailable",
        hint: "Wait a few seconds and retry; if a challenge was used, request a fresh one.",
        anchor: "errors")
    /// 500: anything unexpected (details are logged, never sent).
    public static let internalError = AgentAuthError(
        status: 500, message: "Internal server error",
        hint: "Retry later; if the error persists, tell the operator of this instance.",
        anchor: "errors")

    /// Every error above, for documentation and tests.
    public static let catalogue: [AgentAuthError] = [
        .invalidChallenge, .malformedBody, .usernameXorAPIKey, .invalidNonce, .invalidPowHex, .insufficientWork,
        .powMismatch, .invalidUsername, .reservedUsername, .usernameTaken, .invalidAPIKey, .invalidSession,
        .tooManyRequests, .overloaded, .unavailable, .internalError,
    ]
}

extension AgentAuthError {
    /// The agent answer for a failure of the shared table: 503 ``unavailable`` or 500 ``internalError``.
    init(_ failure: ServiceFailure) {
        switch failure {
        case .unavailable: self = .unavailable
        case .internalError: self = .internalError
        }
    }
}

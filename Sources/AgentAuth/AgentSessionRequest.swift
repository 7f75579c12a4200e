import AgentPoW
import ServerKit

/// The body of `POST /api/v1/session`, checked for shape (CONTRACT.md 1.3 step 2).
///
/// `{"powHex","nonce","username"}` signs up, `{"powHex","nonce","apiKey"}` logs in; other fields are
/// ignored and a JSON `null` counts as absent. The nonce may be a decimal string or a non-negative JSON
/// integer; either way the scrypt input uses its decimal text.
struct AgentSessionRequest: Sendable, Equatable {
    /// What the request asks for.
    enum Intent: Sendable, Equatable {
        /// Create an account with this username.
        case signup(username: String)
        /// Log in with this API key.
        case login(apiKey: String)
    }

    /// `powHex` as sent (its hex form is checked in step 3).
    let powHex: String
    /// The nonce's decimal text.
    let nonce: String
    /// Signup or login.
    let intent: Intent

    /// Parses and checks the body.
    /// - Returns: the request, or the 400 error to answer.
    static func parse(_ body: [UInt8]) -> Result<AgentSessionRequest, AgentAuthError> {
        guard let object = RequestBody(json: body) else { return .failure(.malformedBody) }
        let powHex: String?
        let username: String?
        let apiKey: String?
        do {
            powHex = try object.string("powHex")
            username = try object.string("username")
            apiKey = try object.string("apiKey")
        } catch {
            return .failure(.malformedBody)
        }
        let intent: Intent
        switch (username, apiKey) {
        case (let username?, nil): intent = .signup(username: username)
        case (nil, let apiKey?): intent = .login(apiKey: apiKey)
        default: return .failure(.usernameXorAPIKey)
        }
        let nonce: String
        switch object["nonce"] {
        case .string(let text)? where AgentProofOfWork.isValidNonce(text): nonce = text
        case .integer(let value)? where value >= 0: nonce = String(value)
        default: return .failure(.invalidNonce)
        }
        guard let powHex else { return .failure(.invalidPowHex) }
        return .success(AgentSessionRequest(powHex: powHex, nonce: nonce, intent: intent))
    }
}

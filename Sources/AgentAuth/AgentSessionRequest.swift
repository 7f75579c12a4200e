import Foundation

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
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(body))
        } catch {
            return .failure(.malformedBody)
        }
        let intent: Intent
        switch (wire.username, wire.apiKey) {
        case (let username?, nil): intent = .signup(username: username)
        case (nil, let apiKey?): intent = .login(apiKey: apiKey)
        default: return .failure(.usernameXorAPIKey)
        }
        let nonce: String
        switch wire.nonce {
        case .text(let text)? where AgentProofOfWork.isValidNonce(text): nonce = text
        case .integer(let value)?: nonce = String(value)
        default: return .failure(.invalidNonce)
        }
        guard let powHex = wire.powHex else { return .failure(.invalidPowHex) }
        return .success(AgentSessionRequest(powHex: powHex, nonce: nonce, intent: intent))
    }

    /// The JSON as decoded; unknown keys are skipped by `Decodable`.
    private struct Wire: Decodable {
        var powHex: String?
        var nonce: WireNonce?
        var username: String?
        var apiKey: String?
    }

    /// A nonce as sent: a string, a non-negative integer, or anything else (refused later as a bad nonce).
    private enum WireNonce: Decodable {
        case text(String)
        case integer(UInt64)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else if let value = try? container.decode(UInt64.self) {
                self = .integer(value)
            } else {
                self = .other
            }
        }
    }
}

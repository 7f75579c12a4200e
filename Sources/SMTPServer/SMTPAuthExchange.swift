import Base64Coding
import Foundation

/// Where an `AUTH` exchange (RFC 4954) stands while the server waits for the client's next base64 line.
enum SMTPAuthExchange: Equatable {
    /// `AUTH PLAIN` without an initial response: the next line is `authzid NUL authcid NUL passwd`.
    case plainResponse
    /// `AUTH LOGIN`: the next line is the user name.
    case loginUsername
    /// `AUTH LOGIN`: the next line is the password for `username`.
    case loginPassword(username: String)

    /// `Username:` and `Password:`, as LOGIN's challenges are sent.
    static let usernamePrompt = "VXNlcm5hbWU6"
    static let passwordPrompt = "UGFzc3dvcmQ6"

    /// Decodes one base64 response line as UTF-8; nil when it is not base64 or not UTF-8. `=` is the empty response.
    static func decode(_ line: some Collection<UInt8>) -> String? {
        let text = String(decoding: line, as: UTF8.self)
        if text == "=" { return "" }
        guard let bytes = Base64.decode(text) else { return nil }
        return String(bytes: bytes, encoding: .utf8)
    }

    /// Splits a decoded PLAIN response (RFC 4616) into user name and password: `authzid NUL authcid NUL passwd`,
    /// the authorization identity ignored. Nil when malformed.
    static func plainCredentials(_ decoded: String) -> (username: String, password: String)? {
        let parts = decoded.split(separator: "\0", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[2].isEmpty else { return nil }
        return (String(parts[1]), String(parts[2]))
    }
}

import HTTP1
import MIME

/// The inbox API key (or, later, another bearer) a request to `/mcp` presents, in any of the three spellings hosts
/// send: `Authorization: Bearer <key>`, `Authorization: ApiKey <key>`, `X-API-Key: <key>`.
enum MCPCredential {
    /// The credential of `headers`, or nil when none is present (an empty one counts as none).
    static func token(in headers: HTTPHeaders) -> String? {
        if let authorization = headers["Authorization"] {
            let trimmed = authorization.trimmingSpaces()
            for scheme in ["Bearer", "ApiKey"] {
                guard trimmed.utf8.count > scheme.utf8.count + 1,
                    trimmed.prefix(scheme.count).lowercased() == scheme.lowercased()
                else { continue }
                let rest = trimmed.dropFirst(scheme.count)
                guard rest.first == " " || rest.first == "\t" else { continue }
                let token = String(rest).trimmingSpaces()
                return token.isEmpty ? nil : token
            }
        }
        if let key = headers["X-API-Key"]?.trimmingSpaces(), !key.isEmpty { return key }
        return nil
    }
}

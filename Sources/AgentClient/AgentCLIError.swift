import Foundation

/// A refusal said in the words of the command line rather than the API's hints (which name endpoints).
public enum AgentCLIError {
    /// What `postern agent signup|login` prints for `error` from the server at `url`.
    public static func words(for error: AgentClientError, url: String, username: String?) -> String {
        switch (error.status, error.message) {
        case (0, _):
            return "could not reach \(url): \(error.message.replacingOccurrences(of: "request to ", with: ""))"
        case (409, _):
            return "the username '\(username ?? "")' is taken; choose another with --username"
        case (401, "Invalid API key"):
            return "the server does not know this API key (mistyped, or the account was revoked); check --api-key"
        case (400, "Invalid username"), (400, "Username is reserved"):
            return "the server refused the username '\(username ?? "")'; choose another with --username"
        case (429, _), (503, _):
            return "the server is busy (\(error.message)); try again in a moment"
        default:
            return "the server refused (HTTP \(error.status)): \(error.message)"
        }
    }
}

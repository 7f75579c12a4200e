/// Turns a request's credentials into the principal it acts as. One implementation per kind of bearer; a mail API
/// is given one and serves whatever principal it answers, so a new kind of bearer changes no API method.
public protocol PrincipalAuthenticator: Sendable {
    /// The principal `credentials` prove, or nil when they prove none (an API answers 401).
    /// - Throws: storage errors when the accounts cannot be read (an API answers 503 or 500, never 401).
    func principal(for credentials: Credentials) async throws -> Principal?
}

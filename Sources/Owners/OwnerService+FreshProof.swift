import HTTP1
import ServerKit

extension OwnerService {
    /// The sign-in page's query parameter that shows the form to an owner already signed in: a page that needs a fresh
    /// sign-in sends the browser there (``proofPath(next:)``).
    static let againParameter = "again"

    /// Whether `request`'s session was opened by a sign-in within ``OwnersConfiguration/freshProof``: the rule that
    /// adds a passkey (``SignInMethodsController/hasFreshProof(_:)``).
    /// - Throws: storage errors.
    public func freshlyProven(_ request: HTTPRequest) async throws -> Bool {
        try await signInMethods().hasFreshProof(request)
    }

    /// The sign-in page that asks a signed-in owner to sign in again (a new session, a fresh proof) and comes back to
    /// `next`.
    public static func proofPath(next: String) -> String {
        "/owner/sign-in?\(againParameter)=1&next=" + PercentEncoding.encode(next)
    }
}

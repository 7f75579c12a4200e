import Fetch
import SignInProviders

/// A sign-in provider's transport that is never reached: every call fails (the web inbox's and the owners' provider
/// tests, whose logins are handed verified identities or stop at the provider's door).
public struct UnreachableProvider: ProviderTransport {
    public init() {}

    public func fetch(_ url: String) async throws(FetchError) -> FetchResponse { throw FetchError.invalidURL }

    public func get(_ url: String, headers: [(String, String)]) async throws(FetchError) -> FetchResponse {
        throw FetchError.invalidURL
    }

    public func post(
        _ url: String, headers: [(String, String)], body: [UInt8], readingBody: Bool, startWithin: Duration
    ) async throws(FetchError) -> FetchResponse { throw FetchError.invalidURL }
}

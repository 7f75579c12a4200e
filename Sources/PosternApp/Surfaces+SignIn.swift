import DNS
import Fetch
import OutboundSocket
import SignInProviders
import Storage

extension Surfaces {
    /// The sign-in providers' flow (issue 54), nil without providers: each provider's calls go through a fetcher with
    /// the server's outbound address policy, or with private addresses allowed when its `_ALLOW_PRIVATE_NETWORK` is on
    /// (an in-house or test provider); 64 KiB at most per answer (discovery documents and key sets outgrow Fetch's 4 KiB
    /// default), JSON asked for, names looked up through `resolver` (the runtime's one).
    /// - Throws: `FetchError` when the trusted-roots file cannot be read.
    package static func signInFlow(
        _ c: PosternConfiguration, identity: PublicIdentity, database: any SQLDatabase, resolver: DNSResolver,
        clock: @escaping @Sendable () -> Int64
    ) throws -> SignInFlow? {
        guard !c.signInProviders.providers.isEmpty else { return nil }
        func fetcher(_ policy: AddressPolicy) throws -> Fetcher {
            var fetch = FetchConfiguration(policy: policy)
            fetch.maxBodyBytes = 64 * 1024
            fetch.totalTimeout = .seconds(10)
            fetch.concurrentFetches = 4
            fetch.accept = "application/json"
            return try Fetcher(configuration: fetch, resolver: resolver)
        }
        var fetchers: [Bool: Fetcher] = [:]  // at most two: by whether private addresses are allowed
        return try SignInFlow(
            configuration: c.signInProviders, publicURL: identity.baseURL,
            transactions: SignInTransactionStore(database: database, clock: clock, limits: c.owners.signInCeremonies),
            transport: { provider in
                if let made = fetchers[provider.allowPrivateNetwork] { return made }
                let made = try fetcher(
                    provider.allowPrivateNetwork
                        ? AddressPolicy(allowPrivate: true, allowedHosts: c.outboundAddresses.allowedHosts)
                        : c.outboundAddresses.policy.addresses)
                fetchers[provider.allowPrivateNetwork] = made
                return made
            }, clock: clock)
    }
}

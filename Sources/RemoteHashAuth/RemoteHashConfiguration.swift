import Fetch
import OutboundSocket

/// Everything the remote-hash surface (CONTRACT 3) can be told; every default is stated here.
public struct RemoteHashConfiguration: Sendable {
    /// `iss` of every token minted and required on validation (`JWT_ISSUER`; must not be empty).
    public var issuer: String
    /// The public base URL shown in the API docs on the page (`POSTERN_PUBLIC_URL`); an `https` URL
    /// also marks the cookies `Secure`.
    public var publicURL: String
    /// Let remote hash URLs reach private addresses (`POSTERN_REMOTE_HASH_ALLOW_PRIVATE`). Default false.
    public var allowPrivate: Bool = false
    /// Hosts that may resolve to private addresses even when `allowPrivate` is off. Default empty.
    public var allowedHosts: [String] = []
    /// Largest Argon2 memory cost accepted from a remote hash, in KiB. Default 262144 (256 MiB).
    public var maxArgon2MemoryKiB: UInt32 = 256 * 1024
    /// Most Argon2 passes accepted from a remote hash. Default 10.
    public var maxArgon2Iterations: UInt32 = 10
    /// Largest Argon2 parallelism (lanes) accepted from a remote hash. Default 8.
    public var maxArgon2Parallelism: UInt32 = 8
    /// Argon2 verifications running or queued at once; past it requests get 503. Default 8.
    public var maxConcurrentVerifications: Int = 8
    /// Memory all running verifications may claim together, in KiB; past it requests get 503.
    /// Default 524288 (512 MiB): two verifications at the ceiling, or many cheap ones.
    public var verificationMemoryBudgetKiB: UInt64 = 512 * 1024
    /// Per-address rate limit on these routes (`POSTERN_RATE_LIMITS`). Default on.
    public var rateLimitsEnabled: Bool = true
    /// Requests per minute per client address when rate limits are on. Default 60.
    public var requestsPerMinute: Int = 60
    /// How many instances enforce the limit together (`POSTERN_INSTANCES`): this one takes its share
    /// (`TokenBucketRate.share(among:)`). Default 1.
    public var instances = 1
    /// Slots of the rate-limit table; memory stays bounded by it whatever the number of distinct client
    /// addresses. Default 65,536 (1.5 MiB, allocated as it is used).
    public var rateLimitTableCapacity: Int = 65_536
    /// Lifetime of login tokens in seconds. Default 3600 (the documented `exp` = `iat` + 3600).
    public var tokenTTL: Int64 = 3600
    /// Largest request body on `POST /register`, `/login`, `/validate` and `DELETE /logout`. Default 16 KiB.
    public var bodyLimit: Int = 16 * 1024

    /// Creates a configuration with the contract defaults.
    /// - Parameters:
    ///   - issuer: the `JWT_ISSUER` value.
    ///   - publicURL: the public base URL, for example `http://localhost:8080`.
    public init(issuer: String, publicURL: String) {
        self.issuer = issuer
        self.publicURL = publicURL
    }

    /// The fetcher configuration this surface needs (address policy from `allowPrivate` and
    /// `allowedHosts`, the contract's timeouts and size limits).
    public var fetchConfiguration: FetchConfiguration {
        FetchConfiguration(policy: AddressPolicy(allowPrivate: allowPrivate, allowedHosts: allowedHosts))
    }
}

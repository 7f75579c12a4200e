import OutboundSocket

/// Limits and policy for ``Fetcher``; every default is the one CONTRACT 3.3 names.
public struct FetchConfiguration: Sendable {
    /// Which addresses may be reached. Default: global unicast only.
    public var policy: AddressPolicy = AddressPolicy()
    /// Per-address TCP connect timeout. Default 2 s.
    public var connectTimeout: Duration = .seconds(2)
    /// Deadline for the whole fetch, redirects, DNS and TLS included. Default 5 s.
    public var totalTimeout: Duration = .seconds(5)
    /// Largest accepted response body in bytes. Default 4096 (4 KiB).
    public var maxBodyBytes: Int = 4096
    /// Largest accepted status line plus header block in bytes. Default 8192.
    public var maxHeaderBytes: Int = 8192
    /// Redirects followed before giving up. Default 3.
    public var maxRedirects: Int = 3
    /// Fetches running at once, each on its own thread. Default 8.
    public var concurrentFetches: Int = 8
    /// Fetches waiting for a thread while all ``concurrentFetches`` threads are busy, before
    /// ``FetchError/overloaded``; 0 refuses a fetch only when every thread is busy. Default 64.
    public var queueLimit: Int = 64
    /// A PEM file of trusted roots used instead of the system CA store; nil (default) uses the system
    /// store (`SSL_CTX_set_default_verify_paths`). Meant for tests and private PKI.
    public var trustedRootsPEMFile: String? = nil
    /// `Accept` sent with each request. Default `text/plain, */*;q=0.5` (remote hashes); JSON documents ask for
    /// `application/json`.
    public var accept: String = "text/plain, */*;q=0.5"
    /// `User-Agent` sent with each request.
    public var userAgent: String = "Postern-Fetch/1.0"

    /// The contract defaults.
    public init() {}

    /// The contract defaults with a given address policy.
    public init(policy: AddressPolicy) {
        self.policy = policy
    }
}

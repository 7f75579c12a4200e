import ServerKit

/// Where JMAP is served and its limits (RFC 8620 section 2, `urn:ietf:params:jmap:core`), in one place.
///
/// ``init(config:)`` reads the operator's keys from a reader scoped to `POSTERN_JMAP` and refuses a bad value naming
/// its key; the composition root sets ``baseURL``, ``rateLimitsEnabled`` and ``instances``, which every surface shares.
///
/// ## Configuration keys
/// - `POSTERN_JMAP_EVENT_STREAMS` (positive integer, default 1024): ``maxEventStreams``.
/// - `POSTERN_JMAP_EVENT_STREAMS_PER_CLIENT` (positive integer, default 8): ``maxEventStreamsPerClient``.
public struct JMAPConfiguration: Sendable {
    /// Base URL the session's `apiUrl`, `uploadUrl` and `downloadUrl` start with (no trailing slash).
    public var baseURL: String
    /// Largest upload (the upload URL and each `Blob/upload` blob), and the largest message `Email/set` writes.
    public var maxSizeUpload = 20 * 1024 * 1024
    /// Largest request body of the API URL.
    public var maxSizeRequest = 10 * 1024 * 1024
    /// Largest response of the API URL: a method whose answer (or whose resolved result references) would pass
    /// what is left of it answers the method error `requestTooLarge` instead, and nothing past it is allocated.
    public var maxSizeResponse = 32 * 1024 * 1024
    public var maxCallsInRequest = 32
    public var maxObjectsInGet = 500
    public var maxObjectsInSet = 500
    /// Data sources of one `Blob/upload` blob (RFC 9404).
    public var maxDataSources = 64
    /// Default and largest `limit` of `Email/query` and `Mailbox/query`.
    public var maxQueryLimit = 256
    /// Concurrency the session advertises (not enforced beyond the server's connection cap).
    public var maxConcurrentRequests = 8
    public var maxConcurrentUpload = 4
    /// Per client address (IPv6 per /64), when `rateLimitsEnabled`: API requests and session fetches per minute,
    /// and uploads (the upload URL) per minute. Past them: 429 with `Retry-After`.
    public var rateLimitsEnabled = true
    public var requestsPerMinute = 600
    public var uploadsPerMinute = 60
    /// Bytes of blobs one client address may create per minute, through the upload URL and `Blob/upload` together
    /// (at least `maxSizeUpload`). Past it: 429 with `Retry-After` at the upload URL, `rateLimit` in `notCreated`.
    public var uploadBytesPerMinute = 64 * 1024 * 1024
    /// How many instances enforce these limits together (`POSTERN_INSTANCES`): this one takes its share
    /// (`TokenBucketRate.share(among:)`). Default 1.
    public var instances = 1
    public var rateLimitTableCapacity = 65_536
    /// Bounds of a non-zero `ping` asked of the event source, in seconds: a smaller one is raised, a larger one
    /// lowered (RFC 8620 section 7.3 allows a minimum up to 30 and a maximum from 300). Default 5...300.
    public var eventSourcePingRange = 5...300
    /// Most event-source streams open at once on this instance; one more is 503. Default 1024.
    public var maxEventStreams = 1024
    /// Most event-source streams open at once from one client address (IPv6 per /64); one more is 429. Default 8.
    public var maxEventStreamsPerClient = 8
    /// How long a stream without pings waits before it checks its credentials again (an expired or revoked
    /// bearer ends it then, or at the next event). Default 300 s.
    public var eventSourceRecheck: Duration = .seconds(300)

    /// - Parameter baseURL: the base URL the session's URLs start with; a trailing slash is dropped.
    public init(baseURL: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names: this scopes it);
    /// ``baseURL`` is empty until the composition root knows the public URL.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        self.init(baseURL: "")
        let config = config.scoped(to: "POSTERN_JMAP")
        if let count = try config.integer("EVENT_STREAMS") { maxEventStreams = count }
        if let count = try config.integer("EVENT_STREAMS_PER_CLIENT") { maxEventStreamsPerClient = count }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard maxEventStreams > 0, maxEventStreamsPerClient > 0 else {
            throw ConfigurationError(
                key: maxEventStreams > 0 ? "POSTERN_JMAP_EVENT_STREAMS_PER_CLIENT" : "POSTERN_JMAP_EVENT_STREAMS",
                message: "must be positive")
        }
    }
}

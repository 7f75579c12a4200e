import ConfigurationReading

/// Mailpit's API v1 over the store (issue 71): where it is mounted and its limits.
///
/// ## Configuration keys
/// - `POSTERN_MAILPIT_PATH` (a path such as `/mailpit`, or `off`; default `/mailpit`): ``basePath``.
public struct MailpitConfiguration: Sendable {
    /// The path the API is mounted under (Mailpit's `--webroot`): `<public URL><basePath>/api/v1/...`; nil (`off`)
    /// mounts nothing. Default `/mailpit`.
    public var basePath: String? = "/mailpit"
    /// The operator's token (`POSTERN_OPERATOR_TOKEN`, read by the Mail.td surface's configuration), which sees every
    /// address's mail; nil: only Pro users' API tokens, each seeing its own sandbox.
    public var operatorToken: String?
    /// The version `GET /api/v1/info` reports.
    public var version = "postern"
    /// The most messages one list or search answers (`limit` above it is taken as it). Default 1,000.
    public var maximumLimit = 1000
    /// The largest request body of `POST /api/v1/send`, in bytes. Default 10 MiB.
    public var maximumSendBytes = 10 * 1024 * 1024
    /// The largest request body of the other routes, in bytes. Default 1 MiB.
    public var maximumBodyBytes = 1024 * 1024
    /// The most links one link check fetches (the first of the message's links). Default 100.
    public var maximumLinkChecks = 100
    /// How many of a link check's fetches run at once. Default 8.
    public var concurrentLinkChecks = 8
    /// The most messages an events socket's scope may hold for it to tell each change (it reads every message's
    /// read status and tags at each change); past it, only `stats` is sent. Default 10,000.
    public var maximumEventMessages = 10_000

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names).
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse.
    public init(config: ConfigurationReader) throws {
        let config = config.scoped(to: "POSTERN_MAILPIT")
        if let path = config.nonEmptyText("PATH") {
            basePath = path.lowercased() == "off" ? nil : path
        }
        try validate()
    }

    /// Refuses a base path that is not `/` and path characters without a trailing `/`, naming the key.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard let basePath else { return }
        let allowed = basePath.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/-_.~".unicodeScalars.contains($0))
        }
        guard basePath.hasPrefix("/"), basePath.count > 1, !basePath.hasSuffix("/"), allowed,
            !basePath.contains("//")
        else {
            throw ConfigurationError(
                key: "POSTERN_MAILPIT_PATH",
                message: "must be off or a path such as /mailpit (a leading /, no trailing /, letters, digits, -_.~)")
        }
        if maximumLimit < 1 || maximumSendBytes < 1 || maximumBodyBytes < 1 || maximumLinkChecks < 1
            || concurrentLinkChecks < 1
        {
            throw ConfigurationError(key: "POSTERN_MAILPIT_PATH", message: "limits must be positive")
        }
    }
}

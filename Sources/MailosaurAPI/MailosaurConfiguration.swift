import ConfigurationReading
import ServerKit

/// Mailosaur's API over the store (issue 85 item 2): where it is mounted and its limits.
///
/// ## Configuration keys
/// - `POSTERN_MAILOSAUR_PATH` (a path such as `/mailosaur`, or `off`; default `/mailosaur`): ``basePath``.
public struct MailosaurConfiguration: Sendable {
    /// The path the API is mounted under: a Mailosaur SDK's base URL is `<public URL><basePath>/`, and it calls
    /// `api/servers`, `api/messages`... below it; nil (`off`) mounts nothing. Default `/mailosaur`.
    public var basePath: String? = "/mailosaur"
    /// The operator's token (`POSTERN_OPERATOR_TOKEN`, read by the Mail.td surface's configuration), which sees every
    /// server; nil: only Pro users' API tokens, each seeing its own sandbox.
    public var operatorToken: String?
    /// The store address the SMTP catch-all keeps its mail under (the composition root sets it from delivery's
    /// policy): the operator's first server.
    public var catchAllAddress = "catch-all@postern.invalid"
    /// The `itemsPerPage` of a list or search that gives none (Mailosaur's). Default 50.
    public var defaultItemsPerPage = 50
    /// The largest `itemsPerPage` (Mailosaur's; above it is 400). Default 1,000.
    public var maximumItemsPerPage = 1000
    /// The `x-ms-delay` of an empty search: the milliseconds a Mailosaur SDK sleeps before it searches again while
    /// its `messages.get` waits (the SDK polls; `POST api/messages/await` is the wait that rides the change stream).
    /// Default `[100]`.
    public var searchRetryDelays = [100]
    /// The wait of `POST api/messages/await` when it gives no `timeout`, in milliseconds. Default 30,000.
    public var awaitDefaultMilliseconds = 30_000
    /// The longest wait of `POST api/messages/await` (`timeout` above it is taken as it), in milliseconds. Default
    /// 120,000, the operator's wait's.
    public var awaitMaximumMilliseconds = 120_000
    /// The largest request body (the search criteria), in bytes. Default 64 KiB.
    public var maximumBodyBytes = 64 * 1024

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config` (a reader of whole names).
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse.
    public init(config: ConfigurationReader) throws {
        let config = config.scoped(to: "POSTERN_MAILOSAUR")
        if let path = config.nonEmptyText("PATH") {
            basePath = path.lowercased() == "off" ? nil : path
        }
        try validate()
    }

    /// Refuses a base path ``MountPath`` cannot mount, and limits that are not positive, naming the key.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        if let basePath, !MountPath.isValid(basePath) {
            throw ConfigurationError(
                key: "POSTERN_MAILOSAUR_PATH",
                message: "must be off or a path such as /mailosaur (a leading /, no trailing /, letters, digits, -_.~)")
        }
        if defaultItemsPerPage < 1 || maximumItemsPerPage < defaultItemsPerPage || searchRetryDelays.isEmpty
            || searchRetryDelays.contains(where: { $0 < 1 }) || awaitDefaultMilliseconds < 0
            || awaitMaximumMilliseconds < awaitDefaultMilliseconds || maximumBodyBytes < 1
        {
            throw ConfigurationError(key: "POSTERN_MAILOSAUR_PATH", message: "limits must be positive")
        }
    }
}

import Foundation
import ServerKit

/// How failed webhook deliveries are retried.
///
/// ## Configuration keys
/// - `POSTERN_WEBHOOK_RETRY_SECONDS` (1 to 20 comma-separated delays of 1 to 86400 seconds, default
///   `30,120,600,3600,21600`): ``retrySeconds``.
public struct WebhookConfiguration: Sendable {
    /// The delays in seconds before each retry of a failed delivery. Default `30,120,600,3600,21600`: 6 attempts in
    /// all, the last about 7 h 12 min after the first. After the last retry fails the webhook's status becomes
    /// `failed`.
    public var retrySeconds = [30, 120, 600, 3600, 21600]

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        if let text = config.nonEmptyText("POSTERN_WEBHOOK_RETRY_SECONDS") {
            let delays = text.split(separator: ",", omittingEmptySubsequences: false).map {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            guard delays.allSatisfy({ $0 != nil }) else {
                throw ConfigurationError(
                    key: "POSTERN_WEBHOOK_RETRY_SECONDS", message: "must be comma-separated seconds (got \"\(text)\")")
            }
            retrySeconds = delays.compactMap { $0 }
        }
        try validate()
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard (1...20).contains(retrySeconds.count), retrySeconds.allSatisfy({ (1...86_400).contains($0) }) else {
            throw ConfigurationError(
                key: "POSTERN_WEBHOOK_RETRY_SECONDS", message: "must be 1 to 20 delays of 1 to 86400 seconds")
        }
    }
}

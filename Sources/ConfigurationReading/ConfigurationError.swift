/// A configuration value that cannot be used; the message names the key. Every part's configuration type throws it
/// from its `init(config:)`, and `postern serve` stops with its description.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The configuration key at fault, as written in `config/postern.env`.
    public let key: String
    /// What is wrong and how to fix it.
    public let message: String

    /// Creates an error for `key`.
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    /// `KEY: message`.
    public var description: String { "\(key): \(message)" }
}

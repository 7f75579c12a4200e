/// A local mailbox as delivery sees it: its address and how much its mail may take.
public struct Recipient: Sendable, Hashable {
    /// The address, lower-cased.
    public let address: String
    /// Bytes its mail may take.
    public let quota: Int64

    /// - Parameters:
    ///   - address: the mailbox's address; kept lower-cased.
    ///   - quota: bytes its mail may take.
    public init(address: String, quota: Int64) {
        self.address = address.lowercased()
        self.quota = quota
    }
}

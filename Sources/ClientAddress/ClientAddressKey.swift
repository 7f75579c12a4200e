/// The key a client is counted under for rate limits and dynamic difficulty, one rule for every
/// surface: an IPv4 address (also written IPv4-mapped, `::ffff:a.b.c.d`) as itself, an IPv6 address by
/// its /64 network (see ``IPAddress/rateLimitKey``), a zone id (`%eth0`) ignored, and a peer that is not
/// an address as the text it came as.
public struct ClientAddressKey: Sendable, Hashable, CustomStringConvertible {
    /// The key as text: `192.0.2.1`, `2001:db8:1:2:0:0:0:0/64`, or an unparseable peer's own text.
    public let description: String

    /// The key of `address`.
    public init(_ address: IPAddress) {
        description = address.rateLimitKey
    }

    /// The key of a peer reported as text (the socket peer, say): its address's key when it parses,
    /// else the text itself.
    public init(peer: String) {
        description = IPAddress(peer)?.rateLimitKey ?? peer
    }
}

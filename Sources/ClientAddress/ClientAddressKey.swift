/// The key a client address is counted under for rate limits and dynamic difficulty, one rule for
/// every surface: an IPv4 address (also written IPv4-mapped, `::ffff:a.b.c.d`) as itself, an IPv6
/// address by its /64 network (see ``IPAddress/rateLimitKey``), a zone id (`%eth0`) ignored, and
/// anything unparseable as the text it came as.
public enum ClientAddressKey {
    /// The counting key for `address` (the peer IP as text).
    public static func key(for address: String) -> String {
        IPAddress(address)?.rateLimitKey ?? address
    }
}

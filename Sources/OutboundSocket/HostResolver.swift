/// What turns a host name into the addresses an outbound connection may try. Every outbound request of the server
/// (fetches, SMTP sessions) resolves through the one it is given: the `DNS` target's stub resolver over
/// `POSTERN_DNS_RESOLVER`, the same as every other lookup (decision 0030). ``SystemResolver`` (`getaddrinfo`) serves
/// the command line's own HTTP client only (`postern agent`).
///
/// `localhost` names never reach a resolver: ``AddressPolicy/vettedAddresses(of:hostText:resolver:deadline:)``
/// answers them as loopback itself (RFC 6761 §6.3).
public protocol HostResolver: Sendable {
    /// Every distinct address `name` (lower-cased, not a literal) resolves to, by `deadline`. Called on a thread that
    /// may block (a fetch's or an SMTP session's), never on an event loop or the cooperative pool.
    /// - Throws: ``SocketError/resolutionFailed``, ``SocketError/timedOut`` or ``SocketError/overloaded``.
    func resolve(_ name: String, deadline: Deadline) throws(SocketError) -> [RemoteAddress]
}

import OutboundSocket

/// The resolver of tests whose hosts are all literal addresses or `localhost` (which is never looked up): a name that
/// reaches it fails, so that no test's lookup leaves for the machine's resolver. A test of names runs a
/// ``LoopbackDNSServer`` and gives the code a `DNSResolver` over it.
public struct NoLookups: HostResolver {
    public init() {}

    public func resolve(_ name: String, deadline: Deadline) throws(SocketError) -> [RemoteAddress] {
        throw .resolutionFailed
    }
}

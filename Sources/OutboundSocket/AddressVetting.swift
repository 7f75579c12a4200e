extension AddressPolicy {
    /// Every address `host` may be reached at, all vetted; nothing is connected. One refused address refuses the
    /// host, so that a name resolving to a public and a private address cannot reach the private one.
    /// - Parameters:
    ///   - hostText: the host as written, for ``allowedHosts``.
    ///   - resolver: looks `host` up when it is a name. `localhost` names are never looked up (RFC 6761 §6.3): refused
    ///     unless the policy allows loopback, else 127.0.0.1 and ::1.
    /// - Throws: ``SocketError/notAllowed(_:)``, or the resolver's ``SocketError/resolutionFailed``,
    ///   ``SocketError/timedOut`` or ``SocketError/overloaded``.
    public func vettedAddresses(
        of host: RemoteHost, hostText: String, resolver: any HostResolver, deadline: Deadline
    )
        throws(SocketError) -> [RemoteAddress]
    {
        let addresses: [RemoteAddress]
        switch host {
        case .address(let address):
            addresses = [address]
        case .name(let name):
            if name == "localhost" || name.hasSuffix(".localhost") {
                guard allows(.v4(0x7f00_0001), host: name) else { throw .notAllowed(.loopback) }
                addresses = [.v4(0x7f00_0001), .v6([UInt8](repeating: 0, count: 15) + [1])]
            } else {
                addresses = try resolver.resolve(name, deadline: deadline)
            }
        }
        for address in addresses where !allows(address, host: hostText) {
            throw .notAllowed(AddressPolicy.category(of: address))
        }
        return addresses
    }
}

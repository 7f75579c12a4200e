extension AddressPolicy {
    /// Every address `host` may be reached at, all vetted; nothing is connected. One refused address refuses the
    /// host, so that a name resolving to a public and a private address cannot reach the private one.
    /// - Parameters:
    ///   - hostText: the host as written, for ``allowedHosts``.
    ///   - resolver: looks `host` up when it is a name; `localhost` names the policy could never allow are refused
    ///     before any lookup.
    /// - Throws: ``SocketError/notAllowed(_:)``, or the resolver's ``SocketError/resolutionFailed``,
    ///   ``SocketError/timedOut`` or ``SocketError/overloaded``.
    public func vettedAddresses(of host: RemoteHost, hostText: String, resolver: Resolver, deadline: Deadline)
        throws(SocketError) -> [RemoteAddress]
    {
        let addresses: [RemoteAddress]
        switch host {
        case .address(let address):
            addresses = [address]
        case .name(let name):
            if name == "localhost" || name.hasSuffix(".localhost"), !allows(.v4(0x7f00_0001), host: name) {
                throw .notAllowed(.loopback)
            }
            addresses = try resolver.resolve(name, deadline: deadline)
        }
        for address in addresses where !allows(address, host: hostText) {
            throw .notAllowed(AddressPolicy.category(of: address))
        }
        return addresses
    }
}

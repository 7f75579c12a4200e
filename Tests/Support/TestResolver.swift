import DNS

extension DNSResolver {
    /// The resolver a test gives a service that checks custom domains: asking `address` (a ``LoopbackDNSServer``'s)
    /// with a short timeout; without one, a loopback port nobody answers on, so that a lookup no test expected fails
    /// instead of leaving for the machine's resolver.
    public static func test(_ address: String?) -> DNSResolver {
        DNSResolver(server: DNSServerAddress(address ?? "127.0.0.1:9") ?? .system, timeout: .milliseconds(300))
    }
}

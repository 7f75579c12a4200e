import OutboundSocket

extension DNSResolver: HostResolver {
    /// The addresses of `name` (its A records, then its AAAA records), asked of this resolver's server on the calling
    /// thread, each question within ``timeout`` and all by `deadline`: how every outbound request of the server
    /// (webhooks, remote hashes, sign-in providers, client metadata documents, MTA-STS policies, SMTP hosts) looks a
    /// name up, through the one resolver of `POSTERN_DNS_RESOLVER`.
    ///
    /// The caller's thread blocks (a fetch's or an SMTP session's, whose pools bound them), not the resolver's
    /// ``threadPool()``. One family that answers is enough; a name neither family answers did not resolve.
    /// - Throws: ``SocketError/resolutionFailed`` (no such name, no address, an unanswerable name, a server failure),
    ///   ``SocketError/timedOut`` (no answer by the deadline) or ``SocketError/overloaded``.
    public func resolve(_ name: String, deadline: Deadline) throws(SocketError) -> [RemoteAddress] {
        var found: [RemoteAddress] = []
        var timedOut = false
        for type in [DNSRecordType.a, .aaaa] {
            let left = Duration.milliseconds(Int64(deadline.remainingMilliseconds))
            guard left > .zero else {
                timedOut = true
                break
            }
            do {
                let query = try DNSQuery.random(name: name, type: type)
                let answer = try Self.exchange(query, with: server, deadline: ContinuousClock.now + min(left, timeout))
                guard case .records(let records) = answer else { continue }
                for record in records {
                    let address: RemoteAddress? =
                        switch record {
                        case .a(let bytes) where bytes.count == 4: .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
                        case .aaaa(let bytes) where bytes.count == 16: .v6(bytes)
                        default: nil
                        }
                    if let address, !found.contains(address) { found.append(address) }
                }
            } catch DNSError.timeout {
                timedOut = true
            } catch {
                // Unreachable, malformed, an invalid name: this family has no answer.
            }
        }
        guard !found.isEmpty else { throw timedOut ? .timedOut : .resolutionFailed }
        return found
    }
}

import OutboundSocket

/// The one policy every outbound request of the server follows: the remote-hash fetch and webhook deliveries.
///
/// Which addresses may be reached is the ``AddressPolicy`` (`POSTERN_OUTBOUND_ALLOW_PRIVATE`, with
/// `POSTERN_REMOTE_HASH_ALLOW_PRIVATE` as its older alias, and `POSTERN_OUTBOUND_ALLOWED_HOSTS`); the ``Fetcher``
/// vets every address a name resolves to, on every request and every redirect, so ``vet(_:)`` here is the early,
/// resolution-free half that lets a caller refuse a URL when it is given (a literal private address, `localhost`,
/// plain `http`). Timeouts and size caps are the fetcher's ``FetchConfiguration``.
public struct OutboundPolicy: Sendable, Equatable {
    /// Which addresses may be reached.
    public var addresses: AddressPolicy
    /// Whether plain `http` URLs are accepted. Default: only when private addresses are allowed (a receiver on a
    /// developer's machine or a test harness rarely has a certificate); `https` otherwise.
    public var allowPlainHTTP: Bool

    /// A policy.
    /// - Parameters:
    ///   - allowPrivate: let loopback, private and other non-global addresses through (never link-local or cloud
    ///     metadata addresses, which only `allowedHosts` opens).
    ///   - allowedHosts: hosts let through whatever they resolve to.
    ///   - allowPlainHTTP: accept `http`; nil follows `allowPrivate`.
    public init(allowPrivate: Bool = false, allowedHosts: [String] = [], allowPlainHTTP: Bool? = nil) {
        self.addresses = AddressPolicy(allowPrivate: allowPrivate, allowedHosts: allowedHosts)
        self.allowPlainHTTP = allowPlainHTTP ?? allowPrivate
    }

    /// The fetcher settings that carry this policy (the other limits at their defaults).
    public var fetchConfiguration: FetchConfiguration { FetchConfiguration(policy: addresses) }

    /// Parses `text` and refuses what can be refused without a lookup: anything but `https` (and `http` when
    /// allowed), an IP literal the address policy refuses, and `localhost` names unless loopback is allowed.
    /// - Throws: ``FetchError/invalidURL``, ``FetchError/insecureScheme`` or ``FetchError/notAllowed(_:)``.
    public func vet(_ text: String) throws(FetchError) -> FetchURL {
        let url = try FetchURL(parsing: text)
        if !url.isHTTPS && !allowPlainHTTP { throw .insecureScheme }
        switch url.host {
        case .address(let address):
            if !addresses.allows(address, host: url.hostText) {
                throw .notAllowed(AddressPolicy.category(of: address))
            }
        case .name(let name):
            if name == "localhost" || name.hasSuffix(".localhost"), !addresses.allows(.v4(0x7f00_0001), host: name) {
                throw .notAllowed(.loopback)
            }
        }
        return url
    }
}

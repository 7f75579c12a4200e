/// How a stored TOTP secret (an owner's, a Pro user's) is sealed at rest: the composition root fills it with the
/// signing keys' ``KeySealer`` on PostgreSQL (AES-256-GCM under `POSTERN_KEY_SECRET`); nil (SQLite) keeps it in the
/// clear, as the data directory's key files are. A port, so the second factors' target needs no key store.
public struct SecretSealing: Sendable {
    let seal: @Sendable (_ secret: [UInt8], _ binding: [UInt8]) throws -> [UInt8]
    let open: @Sendable (_ sealed: [UInt8], _ binding: [UInt8]) throws -> [UInt8]

    /// - Parameters:
    ///   - seal: `secret` sealed so that it opens only with `binding` (the holder it belongs to).
    ///   - open: what `seal` sealed with `binding`; throws when it does not open (another key, a moved row).
    public init(
        seal: @escaping @Sendable (_ secret: [UInt8], _ binding: [UInt8]) throws -> [UInt8],
        open: @escaping @Sendable (_ sealed: [UInt8], _ binding: [UInt8]) throws -> [UInt8]
    ) {
        self.seal = seal
        self.open = open
    }
}

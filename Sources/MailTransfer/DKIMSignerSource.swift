import DKIMKeys
import MailAuth

/// Where the transports find a sender domain's DKIM signer: ``DKIMKeyStore`` in the server, a fixed table in tests.
public protocol DKIMSignerSource: Sendable {
    /// The signer of `domain` (every key it signs with); nil when the domain is not one Postern signs for.
    /// - Throws: when the keys exist but cannot be read (the message then waits: it is never sent unsigned by
    ///   accident).
    /// - Warning: may block (a database read): call it on a worker thread.
    func dkimSigner(forDomain domain: String) throws -> DKIMSigner?
}

extension DKIMKeyStore: DKIMSignerSource {
    /// The store's signer for `domain`, its keys made on first use (RSA-2048 and Ed25519).
    public func dkimSigner(forDomain domain: String) throws -> DKIMSigner? {
        try signer(for: domain)
    }
}

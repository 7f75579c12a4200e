import DNS
import EmailAddresses

extension CustomDomains {
    /// The `_domainkey` TXT records `domain` (any case) publishes for the keys its outbound mail is signed with, one
    /// per algorithm (RSA first); its keys are made first when it has none. Empty without ``DomainSigningKeys``.
    /// - Throws: the signing keys' errors.
    public func signingKeyRecords(on domain: String) async throws -> [SigningKeyRecord] {
        guard let signingKeys else { return [] }
        return try await signingKeys.records(for: EmailDomain.key(domain))
    }

    /// Looks each of ``signingKeyRecords(on:)`` up now, at once: published when a TXT record at its name carries the
    /// key. A lookup without an answer counts as not published, with the reason. Never part of a claim's
    /// verification: ownership rests on the claim's own TXT token, and a domain is verified without DKIM.
    /// - Throws: the signing keys' errors (never a lookup's).
    public func checkSigningKeyRecords(on domain: String, resolver: DNSResolver) async throws
        -> [SigningKeyRecordCheck]
    {
        let records = try await signingKeyRecords(on: domain)
        return await withTaskGroup(of: (Int, SigningKeyRecordCheck).self) { group in
            for (index, record) in records.enumerated() {
                group.addTask {
                    let lookup = await DomainOwnershipCheck.lookup(record.name, .txt, resolver)
                    let published = lookup.records.contains { answer in
                        if case .txt(let text) = answer { return record.isPublished(as: text) }
                        return false
                    }
                    return (index, SigningKeyRecordCheck(record: record, published: published, failure: lookup.failure))
                }
            }
            var checks: [(Int, SigningKeyRecordCheck)] = []
            for await check in group { checks.append(check) }
            return checks.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}

import DNS

extension CustomDomains {
    /// Looks up, at once, every record a claim's domain publishes besides the ownership check's TXT and MX (its DKIM
    /// keys' records, SPF and DMARC), and keeps what the check and these lookups found with the claim
    /// (``DomainClaim/recordStates``), so that the domain pages show each row's last state after a reload. Never a
    /// condition of verification: ownership rests on the claim's TXT token alone.
    /// - Parameters:
    ///   - claim: the claim just checked.
    ///   - check: what ``verify(id:of:now:resolver:mxHost:)`` found of the TXT token and the MX.
    ///   - resolver: the DNS resolver.
    ///   - now: the check's time, Unix seconds.
    /// - Returns: the states kept, and each DKIM record's lookup (with its failure, for a message).
    /// - Throws: the signing keys' errors, storage errors (never a lookup's).
    public func checkRecords(
        _ claim: DomainClaim, check: DomainOwnershipCheck, resolver: DNSResolver, now: Int64
    ) async throws -> (states: DomainRecordStates, keys: [SigningKeyRecordCheck]) {
        async let keys = checkSigningKeyRecords(on: claim.domain, resolver: resolver)
        async let policies = Self.policiesPublished(on: claim.domain, resolver: resolver)
        let (keyChecks, published) = try await (keys, policies)
        var states = DomainRecordStates(
            txt: check.txtFound, mx: check.mxFound, spf: published[.spf], dmarc: published[.dmarc], checkedAt: now)
        for key in keyChecks { states.dkim[key.record.name] = key.published }
        let kept = states
        try await database.write { connection in
            try DomainClaimRows.setRecordStates(id: claim.id, kept, connection)
        }
        return (kept, keyChecks)
    }

    /// Whether each of ``SendingPolicyRecord/all(for:)`` is published on `domain` now; a lookup without an answer
    /// counts as not published.
    static func policiesPublished(on domain: String, resolver: DNSResolver) async
        -> [SendingPolicyRecord.Kind: Bool]
    {
        await withTaskGroup(of: (SendingPolicyRecord.Kind, Bool).self) { group in
            for record in SendingPolicyRecord.all(for: domain) {
                group.addTask {
                    let lookup = await DomainOwnershipCheck.lookup(record.name, .txt, resolver)
                    let texts = lookup.records.compactMap { answer -> String? in
                        if case .txt(let text) = answer { return text }
                        return nil
                    }
                    return (record.kind, record.isPublished(in: texts))
                }
            }
            var found: [SendingPolicyRecord.Kind: Bool] = [:]
            for await (kind, published) in group { found[kind] = published }
            return found
        }
    }
}

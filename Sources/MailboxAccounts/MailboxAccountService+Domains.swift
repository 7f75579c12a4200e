import Audit
import CustomDomains
import DNS

/// The Pro users' custom domains, without HTTP: the rules Mail.td's `/api/user/domains` routes (`MailTD`) and the web
/// inbox's Pro dashboard both run.
extension MailboxAccountService {

    /// Claims `given` for `user`, with the records to publish (the DKIM keys are made with the claim).
    /// - Throws: ``MailboxError/invalidDomain``, ``MailboxError/domainAlreadyExists``,
    ///   ``MailboxError/domainLimitReached`` (past the user's `max_domains`); storage errors.
    package func addDomain(_ given: String, for user: ProUserRecord, now: Int64, client: String?) async throws -> ProDomain {
        let claim = try await Self.answering {
            try await customDomains.add(
                given, for: .proUser(user.id), limit: user.maxDomains,
                served: Set(configuration.domains + configuration.proDomains + configuration.otherServedDomains),
                now: now)
        }
        await recordPro(user.id, .domainAdded, target: claim.domain, clientAddress: client)
        return ProDomain(claim: claim, records: try await domainRecords(claim), policies: policyRecords(claim))
    }

    /// Looks the records of `user`'s claim `id` up now (the rules of `POST /api/user/domains/{id}/verify`).
    /// - Throws: ``MailboxError/notFound`` when it is not theirs, ``MailboxError/domainExpired``,
    ///   ``MailboxError/domainAlreadyExists``; storage errors.
    package func verifyDomain(id: String, for user: ProUserRecord, now: Int64, client: String?) async throws
        -> ProDomainVerification
    {
        let holder = DomainHolder.proUser(user.id)
        guard MailboxIdentifiers.isUUID(id), let before = try await customDomains.claim(id: id, of: holder)
        else { throw MailboxError.notFound }
        guard
            let (claim, check) = try await Self.answering({
                try await customDomains.verify(
                    id: id, of: holder, now: now, resolver: resolver, mxHost: configuration.mxHost)
            })
        else { throw MailboxError.notFound }
        if !before.isVerified, claim.isVerified {
            await recordPro(user.id, .domainVerified, target: claim.domain, clientAddress: client)
        }
        // DKIM, SPF and DMARC are looked up with it and every record's state kept with the claim (the dashboard shows
        // each row's last state); none is a condition of verification.
        var checked = claim
        let (states, keys) = try await customDomains.checkRecords(claim, check: check, resolver: resolver, now: now)
        checked.recordStates = states
        let records = apexRecords(claim, check: check) + keyRecords(keys.map { ($0.record, $0.published) })
        return ProDomainVerification(
            claim: claim, txtFound: check.txtFound, mxFound: check.mxFound, records: records, message: check.message,
            policies: policyRecords(checked))
    }

    /// Deletes `user`'s claim `id`.
    /// - Throws: ``MailboxError/notFound`` when it is not theirs, ``MailboxError/domainInUse`` while accounts of the
    ///   user remain on it; storage errors.
    package func deleteDomain(id: String, for user: ProUserRecord, client: String?) async throws {
        guard MailboxIdentifiers.isUUID(id),
            let claim = try await Self.answering({ try await customDomains.delete(id: id, of: .proUser(user.id)) })
        else { throw MailboxError.notFound }
        await recordPro(user.id, .domainRemoved, target: claim.domain, clientAddress: client)
    }

    /// The records `claim` asks to publish, no lookup made: the apex TXT and MX, then the DKIM keys' (made when the
    /// domain has none yet), each `ok` as the last check found it (nil before the first).
    func domainRecords(_ claim: DomainClaim) async throws -> [ProDomainRecord] {
        let keys = try await customDomains.signingKeyRecords(on: claim.domain)
        let states = claim.recordStates
        let apex = apexRecords(claim, check: nil).enumerated().map { index, record in
            ProDomainRecord(
                type: record.type, host: record.host, value: record.value, priority: record.priority,
                ok: index == 0 ? states?.txt : states?.mx)
        }
        return apex + keyRecords(keys.map { ($0, states?.dkim[$0.name]) })
    }

    /// The SPF and DMARC records sending from `claim`'s domain needs, each `ok` as the last check found it.
    func policyRecords(_ claim: DomainClaim) -> [ProDomainRecord] {
        SendingPolicyRecord.all(for: claim.domain).map { policy in
            ProDomainRecord(
                type: "TXT", host: policy.name, value: policy.value, priority: nil,
                ok: claim.recordStates?.published(policy.kind))
        }
    }

    /// The custom domains of the active Pro user `proUserID`, oldest first, each with its records (claims pending past
    /// the window are deleted first, as `GET /api/user/domains` does).
    /// - Throws: ``MailboxError/invalidOrExpiredToken`` when the user is gone or not active; storage errors.
    public func domains(proUserID: String) async throws -> [ProDomain] {
        let user = try await activeProUser(proUserID)
        var domains: [ProDomain] = []
        for claim in try await customDomains.claims(of: .proUser(user.id), now: clock()) {
            domains.append(
                ProDomain(claim: claim, records: try await domainRecords(claim), policies: policyRecords(claim)))
        }
        return domains
    }

    /// Adds `domain` for the active Pro user `proUserID` (the rules of `POST /api/user/domains`).
    public func addDomain(_ domain: String, proUserID: String, client: String?) async throws -> ProDomain {
        try await addDomain(domain, for: activeProUser(proUserID), now: clock(), client: client)
    }

    /// Verifies domain `id` of the active Pro user `proUserID` (the rules of `POST /api/user/domains/{id}/verify`).
    public func verifyDomain(id: String, proUserID: String, client: String?) async throws -> ProDomainVerification {
        try await verifyDomain(id: id, for: activeProUser(proUserID), now: clock(), client: client)
    }

    /// Deletes domain `id` of the active Pro user `proUserID` (the rules of `DELETE /api/user/domains/{id}`).
    public func deleteDomain(id: String, proUserID: String, client: String?) async throws {
        try await deleteDomain(id: id, for: activeProUser(proUserID), client: client)
    }

    /// Runs `body`, answering a ``DomainClaimError`` with its Mail.td error code.
    private static func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DomainClaimError {
            switch error {
            case .invalidDomain: throw MailboxError.invalidDomain
            case .taken: throw MailboxError.domainAlreadyExists
            case .limitReached: throw MailboxError.domainLimitReached
            case .expired: throw MailboxError.domainExpired
            case .inUse: throw MailboxError.domainInUse
            }
        }
    }

    /// The TXT and MX records to publish at the apex; with `ok` when a check was run.
    func apexRecords(_ record: DomainClaim, check: DomainOwnershipCheck?) -> [ProDomainRecord] {
        [
            ProDomainRecord(
                type: "TXT", host: record.domain, value: record.verifyToken, priority: nil, ok: check?.txtFound),
            ProDomainRecord(
                type: "MX", host: record.domain, value: configuration.mxHost, priority: 10, ok: check?.mxFound),
        ]
    }

    /// The `_domainkey` TXT records of the domain's DKIM keys, in the same shape (`host` is the record's full name);
    /// with `ok` when they were looked up.
    func keyRecords(_ records: [(SigningKeyRecord, published: Bool?)]) -> [ProDomainRecord] {
        records.map { record, published in
            ProDomainRecord(type: "TXT", host: record.name, value: record.value, priority: nil, ok: published)
        }
    }
}

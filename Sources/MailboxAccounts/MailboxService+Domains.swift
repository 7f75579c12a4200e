import Audit
import CustomDomains
import DNS
import HTTP1
import JSON

extension MailboxService {
    /// `GET /api/user/domains`: `{"domains":[ProDomain...]}`, oldest first; claims pending past the window are deleted
    /// first and not listed.
    func listDomains(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let list = try await customDomains.claims(of: .proUser(user.id), now: call.now).map(domainObject)
        return MailboxJSON.response(.ok, [("domains", .array(list))])
    }

    /// `POST /api/user/domains {"domain"}`: 201 with the TXT token and the records to publish: the TXT and MX at the
    /// apex, then one `_domainkey` TXT per DKIM key (its keys are made with the claim). 400
    /// `invalid_domain` for a name that is not a domain, 409 `domain_already_exists` when another user or an owner
    /// (for agent inboxes) holds it verified, the service itself has it, or the user claims it already; 403
    /// `domain_limit_reached` past `max_domains`. Other users' pending claims do not stand in the way: the first claim
    /// to verify wins.
    func createDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let body = try MailboxJSON.object(call.request.body)
        guard let given = try MailboxJSON.string(body, "domain") else { throw MailboxError.invalidDomain }
        let added = try await addDomain(
            given, for: user, now: call.now, client: call.context.clientAddress?.description)
        var members = domainMembers(added.claim)
        members.append(("dns_records", .array(added.records.map(\.json))))
        return MailboxJSON.response(.created, members)
    }

    /// `POST /api/user/domains/{id}/verify`: looks the TXT and MX records up now. Verified when the TXT holds this
    /// claim's own token; an MX naming this server is routing (`mx_record`, `mx_configured`), never proof, since it is
    /// the same for every user. Once verified a domain stays verified, and the other pending claims on it (other users'
    /// and owners') are deleted: the first to verify wins. A lookup without an answer leaves it pending with a message,
    /// never an error. The `_domainkey` records are looked up too and reported with their `ok`, never a condition of
    /// verification: ownership rests on the TXT token. 410 `domain_expired` for a claim pending past its window, which
    /// is deleted then; 409 `domain_already_exists` when someone else verified the domain first (this claim is
    /// deleted).
    func verifyDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let result = try await verifyDomain(
            id: call.id, for: user, now: call.now, client: call.context.clientAddress?.description)
        var members: [(String, JSONValue)] = [
            ("verify_status", .string(result.claim.isVerified ? "verified" : "pending")),
            ("txt_record", .bool(result.txtFound)), ("mx_record", .bool(result.mxFound)),
            ("dns_records", .array(result.records.map(\.json))),
        ]
        if let message = result.message { members.append(("message", .string(message))) }
        return MailboxJSON.response(.ok, members)
    }

    /// `DELETE /api/user/domains/{id}`: 204; mail for the domain is refused from then on. 409 `domain_in_use` while
    /// accounts of the user remain on it: an account on a custom domain is served only while its owner holds the
    /// domain verified, so they are deleted first.
    func deleteDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        try await deleteDomain(id: call.id, for: user, client: call.context.clientAddress?.description)
        return MailboxJSON.noContent()
    }

    // MARK: - The rules, for the API above and the web inbox's dashboard

    /// Claims `given` for `user`, with the records to publish (the DKIM keys are made with the claim).
    /// - Throws: ``MailboxError/invalidDomain``, ``MailboxError/domainAlreadyExists``,
    ///   ``MailboxError/domainLimitReached`` (past the user's `max_domains`); storage errors.
    func addDomain(_ given: String, for user: ProUserRecord, now: Int64, client: String?) async throws -> ProDomain {
        let claim = try await Self.answering {
            try await customDomains.add(
                given, for: .proUser(user.id), limit: user.maxDomains,
                served: Set(configuration.domains + configuration.proDomains + configuration.otherServedDomains),
                now: now)
        }
        await accounts.recordPro(user.id, .domainAdded, target: claim.domain, clientAddress: client)
        return ProDomain(claim: claim, records: try await domainRecords(claim), policies: policyRecords(claim))
    }

    /// Looks the records of `user`'s claim `id` up now (the rules of `POST /api/user/domains/{id}/verify`).
    /// - Throws: ``MailboxError/notFound`` when it is not theirs, ``MailboxError/domainExpired``,
    ///   ``MailboxError/domainAlreadyExists``; storage errors.
    func verifyDomain(id: String, for user: ProUserRecord, now: Int64, client: String?) async throws
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
            await accounts.recordPro(user.id, .domainVerified, target: claim.domain, clientAddress: client)
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
    func deleteDomain(id: String, for user: ProUserRecord, client: String?) async throws {
        guard MailboxIdentifiers.isUUID(id),
            let claim = try await Self.answering({ try await customDomains.delete(id: id, of: .proUser(user.id)) })
        else { throw MailboxError.notFound }
        await accounts.recordPro(user.id, .domainRemoved, target: claim.domain, clientAddress: client)
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
        let user = try await accounts.activeProUser(proUserID)
        var domains: [ProDomain] = []
        for claim in try await customDomains.claims(of: .proUser(user.id), now: clock()) {
            domains.append(
                ProDomain(claim: claim, records: try await domainRecords(claim), policies: policyRecords(claim)))
        }
        return domains
    }

    /// Adds `domain` for the active Pro user `proUserID` (the rules of `POST /api/user/domains`).
    public func addDomain(_ domain: String, proUserID: String, client: String?) async throws -> ProDomain {
        try await addDomain(domain, for: accounts.activeProUser(proUserID), now: clock(), client: client)
    }

    /// Verifies domain `id` of the active Pro user `proUserID` (the rules of `POST /api/user/domains/{id}/verify`).
    public func verifyDomain(id: String, proUserID: String, client: String?) async throws -> ProDomainVerification {
        try await verifyDomain(id: id, for: accounts.activeProUser(proUserID), now: clock(), client: client)
    }

    /// Deletes domain `id` of the active Pro user `proUserID` (the rules of `DELETE /api/user/domains/{id}`).
    public func deleteDomain(id: String, proUserID: String, client: String?) async throws {
        try await deleteDomain(id: id, for: accounts.activeProUser(proUserID), client: client)
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

    /// A ProDomain object: every key the SDKs require, `verified_at` null while pending.
    func domainObject(_ record: DomainClaim) -> JSONValue { .object(domainMembers(record)) }

    func domainMembers(_ record: DomainClaim) -> [(String, JSONValue)] {
        [
            ("id", .string(record.id)), ("domain", .string(record.domain)),
            ("verify_status", .string(record.isVerified ? "verified" : "pending")),
            ("verify_token", .string(record.verifyToken)), ("verified_at", MailboxJSON.time(record.verifiedAt)),
            ("mx_configured", .bool(record.mxConfigured)), ("created_at", MailboxJSON.time(record.createdAt)),
        ]
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

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
        let claim = try await Self.answering {
            try await customDomains.add(
                given, for: .proUser(user.id), limit: user.maxDomains,
                served: Set(configuration.domains + configuration.proDomains), now: call.now)
        }
        await recordPro(user.id, .domainAdded, target: claim.domain, call)
        var members = domainMembers(claim)
        let keys = try await customDomains.signingKeyRecords(on: claim.domain)
        members.append(("dns_records", .array(dnsRecords(claim, check: nil) + keyRecords(keys.map { ($0, nil) }))))
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
        let holder = DomainHolder.proUser(user.id)
        guard MailboxIdentifiers.isUUID(call.id), let before = try await customDomains.claim(id: call.id, of: holder)
        else { throw MailboxError.notFound }
        guard
            let (claim, check) = try await Self.answering({
                try await customDomains.verify(
                    id: call.id, of: holder, now: call.now, resolver: resolver, mxHost: configuration.mxHost)
            })
        else { throw MailboxError.notFound }
        if !before.isVerified, claim.isVerified {
            await recordPro(user.id, .domainVerified, target: claim.domain, call)
        }
        let keys = try await customDomains.checkSigningKeyRecords(on: claim.domain, resolver: resolver)
        let records = dnsRecords(claim, check: check) + keyRecords(keys.map { ($0.record, $0.published) })
        var members: [(String, JSONValue)] = [
            ("verify_status", .string(claim.isVerified ? "verified" : "pending")),
            ("txt_record", .bool(check.txtFound)), ("mx_record", .bool(check.mxFound)),
            ("dns_records", .array(records)),
        ]
        if let message = check.message { members.append(("message", .string(message))) }
        return MailboxJSON.response(.ok, members)
    }

    /// `DELETE /api/user/domains/{id}`: 204; mail for the domain is refused from then on. 409 `domain_in_use` while
    /// accounts of the user remain on it: an account on a custom domain is served only while its owner holds the
    /// domain verified, so they are deleted first.
    func deleteDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        guard MailboxIdentifiers.isUUID(call.id),
            let claim = try await Self.answering({ try await customDomains.delete(id: call.id, of: .proUser(user.id)) })
        else { throw MailboxError.notFound }
        await recordPro(user.id, .domainRemoved, target: claim.domain, call)
        return MailboxJSON.noContent()
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
    func dnsRecords(_ record: DomainClaim, check: DomainOwnershipCheck?) -> [JSONValue] {
        var txt: [(String, JSONValue)] = [
            ("type", "TXT"), ("host", .string(record.domain)), ("value", .string(record.verifyToken)),
        ]
        var mx: [(String, JSONValue)] = [
            ("type", "MX"), ("host", .string(record.domain)), ("value", .string(configuration.mxHost)),
            ("priority", .int(10)),
        ]
        if let check {
            txt.append(("ok", .bool(check.txtFound)))
            mx.append(("ok", .bool(check.mxFound)))
        }
        return [.object(txt), .object(mx)]
    }

    /// The `_domainkey` TXT records of the domain's DKIM keys, in the same shape (`host` is the record's full name);
    /// with `ok` when they were looked up.
    func keyRecords(_ records: [(SigningKeyRecord, published: Bool?)]) -> [JSONValue] {
        records.map { record, published in
            var members: [(String, JSONValue)] = [
                ("type", "TXT"), ("host", .string(record.name)), ("value", .string(record.value)),
            ]
            if let published { members.append(("ok", .bool(published))) }
            return .object(members)
        }
    }
}

import Audit
import AuthCrypto
import DNS
import HTTP1
import JSON

extension MailboxService {
    /// `GET /api/user/domains`: `{"domains":[ProDomain...]}`, oldest first; claims pending past the window are deleted
    /// first and not listed.
    func listDomains(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        try await store.deleteLapsedDomains(
            ownerID: user.id, now: call.now, window: configuration.domainVerificationWindow)
        let list = try await store.domains(ownerID: user.id).map(domainObject)
        return MailboxJSON.response(.ok, [("domains", .array(list))])
    }

    /// `POST /api/user/domains {"domain"}`: 201 with the TXT token and the two records to publish. 400
    /// `invalid_domain` for a name that is not a domain, 409 `domain_already_exists` when another user or an owner
    /// (for agent inboxes) holds it verified, the service itself has it, or the user claims it already; 403
    /// `domain_limit_reached` past `max_domains`. Other users' pending claims do not stand in the way: the first claim
    /// to verify wins.
    func createDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let body = try MailboxJSON.object(call.request.body)
        guard let given = try MailboxJSON.string(body, "domain"), let domain = DomainName.normalized(given) else {
            throw MailboxError.invalidDomain
        }
        if (configuration.domains + configuration.proDomains).contains(domain) {
            throw MailboxError.domainAlreadyExists
        }
        if try await configuration.otherDomainClaims?.holdsVerified(domain: domain) == true {
            throw MailboxError.domainAlreadyExists
        }
        let record = ProDomainRecord(
            id: MailboxIdentifiers.uuid(), ownerID: user.id, domain: domain,
            verifyToken: "postern-verify-" + SecureRandom.hex(byteCount: 12), verifiedAt: nil, mxConfigured: false,
            createdAt: call.now)
        try await store.insert(record, limit: user.maxDomains, window: configuration.domainVerificationWindow)
        // Asked again once the row is in: an owner who verified the domain meanwhile keeps it.
        if try await configuration.otherDomainClaims?.holdsVerified(domain: domain) == true {
            try await store.deleteDomain(id: record.id)
            throw MailboxError.domainAlreadyExists
        }
        await recordPro(user.id, .domainAdded, target: domain, call)
        var members = domainMembers(record)
        members.append(("dns_records", .array(dnsRecords(record, check: nil))))
        return MailboxJSON.response(.created, members)
    }

    /// `POST /api/user/domains/{id}/verify`: looks the TXT and MX records up now. Verified when the TXT holds this
    /// claim's own token; an MX naming this server is routing (`mx_record`, `mx_configured`), never proof, since it is
    /// the same for every user. Once verified a domain stays verified, and the other pending claims on it (other users'
    /// and owners') are deleted: the first to verify wins. A lookup without an answer leaves it pending with a message,
    /// never an error. 410 `domain_expired` for a claim pending past its window, which is deleted then; 409
    /// `domain_already_exists` when someone else verified the domain first (this claim is deleted, unless an owner
    /// verified it in the same instant: then it stays pending).
    func verifyDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        guard MailboxIdentifiers.isUUID(call.id), var record = try await store.domain(id: call.id, ownerID: user.id)
        else { throw MailboxError.notFound }
        if record.verifiedAt == nil, call.now - record.createdAt > configuration.domainVerificationWindow {
            try await store.deleteDomain(id: record.id)
            throw MailboxError.domainExpired
        }
        let check = await DomainOwnershipCheck.run(
            domain: record.domain, token: record.verifyToken, mxHost: configuration.mxHost, resolver: resolver)
        if record.verifiedAt == nil, check.txtFound {
            try await claimVerified(record, at: call.now, mxConfigured: check.mxFound)
            record.verifiedAt = call.now
            await recordPro(user.id, .domainVerified, target: record.domain, call)
        } else {
            try await store.recordMX(id: record.id, mxConfigured: check.mxFound)
        }
        var members: [(String, JSONValue)] = [
            ("verify_status", .string(record.verifiedAt == nil ? "pending" : "verified")),
            ("txt_record", .bool(check.txtFound)), ("mx_record", .bool(check.mxFound)),
            ("dns_records", .array(dnsRecords(record, check: check))),
        ]
        if let message = check.message { members.append(("message", .string(message))) }
        return MailboxJSON.response(.ok, members)
    }

    /// Makes the pending claim `record` the domain's one verified claim, or throws `.domainAlreadyExists`: another
    /// claim here or on the other surface holds it verified. Then deletes every other pending claim on the domain.
    private func claimVerified(_ record: ProDomainRecord, at now: Int64, mxConfigured: Bool) async throws {
        let other = configuration.otherDomainClaims
        if try await other?.holdsVerified(domain: record.domain) == true {
            try await store.deleteDomain(id: record.id)
            throw MailboxError.domainAlreadyExists
        }
        do {
            _ = try await store.markVerified(id: record.id, now: now, mxConfigured: mxConfigured)
        } catch let error as MailboxError where error == .domainAlreadyExists {
            try await store.deleteDomain(id: record.id)
            throw error
        }
        // Asked again once verified: of two verifies racing on two surfaces, the later one to ask sees the other.
        if try await other?.holdsVerified(domain: record.domain) == true {
            try await store.markPending(id: record.id)
            throw MailboxError.domainAlreadyExists
        }
        try await store.deletePendingDomains(record.domain)
        try await other?.dropPending(domain: record.domain)
    }

    /// `DELETE /api/user/domains/{id}`: 204; mail for the domain is refused from then on. 409 `domain_in_use` while
    /// accounts of the user remain on it: an account on a custom domain is served only while its owner holds the
    /// domain verified, so they are deleted first.
    func deleteDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        guard MailboxIdentifiers.isUUID(call.id), let record = try await store.domain(id: call.id, ownerID: user.id),
            try await store.deleteDomain(id: call.id, ownerID: user.id)
        else { throw MailboxError.notFound }
        await recordPro(user.id, .domainRemoved, target: record.domain, call)
        return MailboxJSON.noContent()
    }

    /// A ProDomain object: every key the SDKs require, `verified_at` null while pending.
    func domainObject(_ record: ProDomainRecord) -> JSONValue { .object(domainMembers(record)) }

    func domainMembers(_ record: ProDomainRecord) -> [(String, JSONValue)] {
        [
            ("id", .string(record.id)), ("domain", .string(record.domain)),
            ("verify_status", .string(record.verifiedAt == nil ? "pending" : "verified")),
            ("verify_token", .string(record.verifyToken)), ("verified_at", MailboxJSON.time(record.verifiedAt)),
            ("mx_configured", .bool(record.mxConfigured)), ("created_at", MailboxJSON.time(record.createdAt)),
        ]
    }

    /// The TXT and MX records to publish at the apex; with `ok` when a check was run.
    func dnsRecords(_ record: ProDomainRecord, check: DomainOwnershipCheck?) -> [JSONValue] {
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
}

import AuthCrypto
import DNS
import HTTP1
import JSON

extension MailboxService {
    /// `GET /api/user/domains`: `{"domains":[ProDomain...]}`, oldest first.
    func listDomains(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let list = try await store.domains(ownerID: user.id).map(domainObject)
        return MailboxJSON.response(.ok, [("domains", .array(list))])
    }

    /// `POST /api/user/domains {"domain"}`: 201 with the TXT token and the two records to publish. 400
    /// `invalid_domain` for a name that is not a domain, 409 `domain_already_exists` when another user, an owner (for
    /// agent inboxes) or the service itself has it, 403 `domain_limit_reached` past `max_domains`.
    func createDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        let body = try MailboxJSON.object(call.request.body)
        guard let given = try MailboxJSON.string(body, "domain"), let domain = DomainName.normalized(given) else {
            throw MailboxError.invalidDomain
        }
        if (configuration.domains + configuration.proDomains).contains(domain) {
            throw MailboxError.domainAlreadyExists
        }
        if try await configuration.otherDomainClaims?.holds(domain: domain) == true {
            throw MailboxError.domainAlreadyExists
        }
        let record = ProDomainRecord(
            id: MailboxIdentifiers.uuid(), ownerID: user.id, domain: domain,
            verifyToken: "postern-verify-" + SecureRandom.hex(byteCount: 12), verifiedAt: nil, mxConfigured: false,
            createdAt: call.now)
        try await store.insert(record, limit: user.maxDomains)
        // Asked again once the row is in: of two adds racing on two surfaces, each of which saw the domain free, the
        // later one to ask sees the other's row, so at most one keeps it.
        if try await configuration.otherDomainClaims?.holds(domain: domain) == true {
            _ = try await store.deleteDomain(id: record.id, ownerID: user.id)
            throw MailboxError.domainAlreadyExists
        }
        var members = domainMembers(record)
        members.append(("dns_records", .array(dnsRecords(record, check: nil))))
        return MailboxJSON.response(.created, members)
    }

    /// `POST /api/user/domains/{id}/verify`: looks the TXT and MX records up now. Verified when the TXT holds the
    /// token or the MX names this server (either proves control of the zone); once verified a domain stays verified.
    /// A lookup without an answer leaves it pending with a message, never an error. 410 `domain_expired` for a domain
    /// pending past its window.
    func verifyDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        guard MailboxIdentifiers.isUUID(call.id), var record = try await store.domain(id: call.id, ownerID: user.id)
        else { throw MailboxError.notFound }
        if record.verifiedAt == nil, call.now - record.createdAt > configuration.domainVerificationWindow {
            throw MailboxError.domainExpired
        }
        let check = await DomainOwnershipCheck.run(
            domain: record.domain, token: record.verifyToken, mxHost: configuration.mxHost, resolver: resolver)
        let verifiedNow = check.txtFound || check.mxFound
        try await store.recordVerification(
            id: record.id, verifiedAt: verifiedNow ? call.now : nil, mxConfigured: check.mxFound)
        if verifiedNow, record.verifiedAt == nil { record.verifiedAt = call.now }
        var members: [(String, JSONValue)] = [
            ("verify_status", .string(record.verifiedAt == nil ? "pending" : "verified")),
            ("txt_record", .bool(check.txtFound)), ("mx_record", .bool(check.mxFound)),
            ("dns_records", .array(dnsRecords(record, check: check))),
        ]
        if let message = check.message { members.append(("message", .string(message))) }
        return MailboxJSON.response(.ok, members)
    }

    /// `DELETE /api/user/domains/{id}`: 204; mail for the domain is refused from then on. Accounts already created on
    /// it and their messages stay until they are deleted.
    func deleteDomain(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await authorizer.requireProUser(call.bearer)
        guard MailboxIdentifiers.isUUID(call.id), try await store.deleteDomain(id: call.id, ownerID: user.id) else {
            throw MailboxError.notFound
        }
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

import MailboxAccounts
import MailboxRoutes
import Audit
import CustomDomains
import DNS
import HTTP1
import JSON
import ServerKit

/// Mail.td's `/api/user/domains` (a Pro user's custom domains): the routes over the accounts' domain rules
/// (`MailboxAccountService+Domains.swift`), which the web inbox's Pro dashboard runs too.
struct DomainsController: MailboxController {
    let surface: MailboxService

    func register(on router: inout ContextRouter) {
        let limit = MailboxService.bodyLimit
        router.add(.GET, "/api/user/domains", deferred(.general, listDomains))
        router.add(.POST, "/api/user/domains", bodyLimit: limit, deferred(.general, createDomain))
        router.add(.POST, "/api/user/domains/{id}/verify", bodyLimit: limit, deferred(.general, verifyDomain))
        router.add(.DELETE, "/api/user/domains/{id}", deferred(.general, deleteDomain))
    }

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
        let added = try await accounts.addDomain(
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
        let result = try await accounts.verifyDomain(
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
        try await accounts.deleteDomain(id: call.id, for: user, client: call.context.clientAddress?.description)
        return MailboxJSON.noContent()
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
}

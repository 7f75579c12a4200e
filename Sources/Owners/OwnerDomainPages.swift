import Audit
import BrowserPages
import CustomDomains
import DNS
import Directory
import EmailAddresses
import HTTP1
import ServerKit

/// The routes of `/owner/domains` (``OwnerDomainsPage``): list, add, verify, delete, and create an inbox on a verified
/// domain through ``OwnedInboxes``. Every post is CSRF-checked; a domain that is not the owner's is a 404 page.
public struct OwnerDomainPages: Sendable {
    let service: OwnerService
    let inboxes: any OwnedInboxes

    /// - Parameters:
    ///   - service: sign-in, sessions, CSRF and the domains table.
    ///   - inboxes: where inboxes are made (the agent surface); at most ``OwnersConfiguration/maxInboxes`` an owner.
    public init(service: OwnerService, inboxes: any OwnedInboxes) {
        self.service = service
        self.inboxes = CappedOwnedInboxes(inboxes, limit: service.configuration.maxInboxes)
    }

    /// Adds `GET|POST /owner/domains` and `POST /owner/domains/{id}/verify|delete|inboxes`.
    public func register(into router: inout ContextRouter) {
        let limit = service.configuration.bodyLimit
        router.add(.GET, "/owner/domains", route { request, _, owner, _ in try await page(request, owner) })
        router.add(.POST, "/owner/domains", bodyLimit: limit, route(add))
        router.add(.POST, "/owner/domains/{id}/verify", bodyLimit: limit, route(verify))
        router.add(.POST, "/owner/domains/{id}/delete", bodyLimit: limit, route(delete))
        router.add(.POST, "/owner/domains/{id}/inboxes", bodyLimit: limit, route(createInbox))
    }

    typealias Handler = OwnerService.OwnerActionHandler

    /// Rate limit and error page (the service's middleware), sign-in required, CSRF checked on posts.
    private func route(_ handler: @escaping Handler) -> ContextRouteHandler {
        service.ownerRoute(page: "/owner/domains", title: "Your domains", handler)
    }

    private func page(
        _ request: HTTPRequest, _ owner: Owner, status: HTTPStatus = .ok, configure: (inout OwnerDomainsPage) -> Void = { _ in }
    ) async throws -> HTTPResponse {
        let domains = try await service.domains.domains(ownerID: owner.id)
        return try await service.respond(request, status: status, configure: configure) { token in
            var page = OwnerDomainsPage(
                owner: owner, csrfToken: token, domains: domains, mxHost: service.domains.mxHost)
            page.verificationDays = service.domains.verificationWindow / 86_400
            for domain in domains { page.keyRecords[domain.id] = try await service.domains.signingKeyRecords(domain) }
            return page
        }
    }

    private func add(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        let typed = request.formFields()["domain"] ?? ""
        do {
            let domain = try await service.domains.add(typed, ownerID: owner.id)
            await service.audit.owner(owner.id, .domainAdded, target: domain.domain, client: client)
            return try await page(request, owner, status: .created) {
                $0.notice = PageNotice("Added \(domain.domain). Publish the TXT record below, then verify.", .success)
            }
        } catch let error as OwnerDomainError {
            let (status, words): (HTTPStatus, String) =
                switch error {
                case .invalidDomain: (.unprocessableEntity, "That is not a domain name.")
                case .taken: (.conflict, "That domain is already in use.")
                case .limitReached: (.forbidden, "You have \(service.domains.limit) domains already: delete one first.")
                case .expired, .inUse: (.conflict, "That domain cannot be added now.")
                }
            return try await page(request, owner, status: status) {
                $0.error = words
                $0.typedDomain = typed
            }
        }
    }

    private func verify(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        guard let id = parameters["id"] else {
            return BrowserPage.message(.notFound, "Your domains", "No such domain.")
        }
        let wasPending = try await service.domains.domain(id: id, ownerID: owner.id)?.verifiedAt == nil
        let result: (domain: DomainClaim, check: DomainOwnershipCheck)?
        do {
            result = try await service.domains.verify(id: id, ownerID: owner.id)
        } catch let error as OwnerDomainError where error == .expired || error == .taken {
            let days = service.domains.verificationWindow / 86_400
            let words =
                error == .expired
                ? "That claim stayed unverified for \(days) days and lapsed: add the domain again."
                : "Someone else verified that domain first; your claim on it is gone."
            let status = error == .expired ? HTTPStatus(code: 410, reason: "Gone") : .conflict
            return try await page(request, owner, status: status) { $0.error = words }
        }
        guard let (domain, check) = result
        else { return BrowserPage.message(.notFound, "Your domains", "No such domain.") }
        if domain.verifiedAt != nil, wasPending {
            await service.audit.owner(owner.id, .domainVerified, target: domain.domain, client: client)
        }
        // Whether the DKIM, SPF and DMARC records are published is kept with the check (the page shows each row's last
        // state); it is no condition of verification.
        _ = try await service.domains.checkRecords(domain, check: check)
        return try await page(request, owner) {
            $0.check = (domain.id, check)
            if domain.verifiedAt != nil { $0.notice = PageNotice("\(domain.domain) is verified.", .success) }
        }
    }

    /// Refused while the owner has inboxes on the domain: an inbox there is local only while its owner holds the
    /// domain verified, so deleting the domain under them would silently cut them off (and free it for someone else).
    private func delete(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        guard let id = parameters["id"], let domain = try await service.domains.domain(id: id, ownerID: owner.id) else {
            return BrowserPage.message(.notFound, "Your domains", "No such domain.")
        }
        let suffix = "@" + domain.domain
        let remaining = try await inboxes.inboxes(ownerID: owner.id)
            .filter { EmailAddress.key($0.address).hasSuffix(suffix) }
        guard remaining.isEmpty else {
            return try await page(request, owner, status: .conflict) {
                let addresses = remaining.map(\.address).joined(separator: ", ")
                $0.error =
                    "\(domain.domain) still has \(remaining.count) inbox\(remaining.count == 1 ? "" : "es") on it "
                    + "(\(addresses)): a domain cannot be deleted while inboxes exist on it."
            }
        }
        let deleted: Bool
        do {
            deleted = try await service.domains.delete(id: id, ownerID: owner.id)
        } catch OwnerDomainError.inUse {
            // An inbox made since the list above: the claims refuse the delete in the same transaction.
            return try await page(request, owner, status: .conflict) {
                $0.error = "\(domain.domain) still has inboxes on it: a domain cannot be deleted while inboxes exist on it."
            }
        }
        guard deleted else { return BrowserPage.message(.notFound, "Your domains", "No such domain.") }
        await service.audit.owner(owner.id, .domainRemoved, target: domain.domain, client: client)
        return try await page(request, owner) { $0.notice = PageNotice("Domain deleted.", .success) }
    }

    private func createInbox(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws
        -> HTTPResponse
    {
        guard let id = parameters["id"],
            let domain = try await service.domains.domains(ownerID: owner.id).first(where: { $0.id == id }),
            domain.verifiedAt != nil
        else { return BrowserPage.message(.notFound, "Your domains", "No such verified domain.") }
        let localPart = request.formFields()["local_part"] ?? ""
        // A Pro user's account left at this address (the domain was theirs before) keeps its mail under it.
        let address = EmailAddress.key(localPart + "@" + domain.domain)
        if try await service.domains.isAddressHeldElsewhere(address, ownerID: owner.id) {
            return try await page(request, owner, status: .conflict) { $0.error = "That address is taken." }
        }
        do {
            let (inbox, key) = try await inboxes.createInbox(
                username: localPart, domain: domain.domain, ownerID: owner.id)
            await service.audit.owner(owner.id, .inboxCreated, target: inbox.address, client: client)
            return try await page(request, owner, status: .created) { $0.created = (inbox.address, key) }
        } catch let error as OwnedInboxError {
            let (status, words): (HTTPStatus, String) =
                switch error {
                case .usernameTaken: (.conflict, "That address is taken.")
                case .limitReached(let limit): (.forbidden, OwnerMessage.inboxLimit(limit))
                default:
                    (.unprocessableEntity, "Use 1 to 21 of a-z 0-9 . _ -, starting and ending with a letter or digit.")
                }
            return try await page(request, owner, status: status) { $0.error = words }
        }
    }
}

import AppPasswords
import Audit
import BrowserPages
import Directory
import HTTP1
import ServerKit

/// The routes of `/owner/app-passwords` (``OwnerAppPasswordsPage``, issue 87 items 2 and 4): list, make and revoke an
/// owner's app passwords, and download an Apple Mail profile carrying a new one. An app password opens the one inbox
/// it was made for (which the owner must hold then, and at every sign-in) at the doors ticked (IMAP, POP3,
/// submission); the mail sign-in checks it, never a web sign-in.
///
/// Making one (and the profile, which makes one) needs a fresh proof (``OwnerService/freshlyProven(_:)``): an older
/// session is sent to sign in again and back (303 to ``OwnerService/proofPath(next:)``), with nothing made. Revoking
/// needs only the session. Every post is CSRF-checked; each make and revoke is on the owner's audit trail.
public struct OwnerAppPasswordPages: Sendable {
    /// The Apple configuration profile (`.mobileconfig`) of the inbox at `address` with `password`, as the composition
    /// root makes it from the mail clients' setup (the servers autoconfig announces).
    public typealias AppleMailProfile = @Sendable (_ address: String, _ password: String) -> [UInt8]

    static let title = "App passwords"
    static let path = "/owner/app-passwords"

    let service: OwnerService
    let inboxes: any OwnedInboxes
    let store: AppPasswordStore
    let appleMail: AppleMailProfile?
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - service: sign-in, sessions, CSRF, the fresh-proof rule and audit.
    ///   - inboxes: the owner's inboxes (what an app password may open).
    ///   - store: the app passwords.
    ///   - appleMail: the Apple Mail profile's maker; nil offers none.
    ///   - clock: Unix seconds.
    public init(
        service: OwnerService, inboxes: any OwnedInboxes, store: AppPasswordStore, appleMail: AppleMailProfile?,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.service = service
        self.inboxes = inboxes
        self.store = store
        self.appleMail = appleMail
        self.clock = clock
    }

    /// Adds `GET|POST /owner/app-passwords`, `POST /owner/app-passwords/{id}/revoke` and `POST
    /// /owner/app-passwords/apple-mail`.
    public func register(into router: inout ContextRouter) {
        let limit = service.configuration.bodyLimit
        router.add(.GET, Self.path, route { request, _, owner, _ in try await page(request, owner) })
        router.add(.POST, Self.path, bodyLimit: limit, route(create))
        router.add(.POST, Self.path + "/apple-mail", bodyLimit: limit, route(appleMailProfile))
        router.add(.POST, Self.path + "/{id}/revoke", bodyLimit: limit, route(revoke))
    }

    private func route(_ handler: @escaping OwnerService.OwnerActionHandler) -> ContextRouteHandler {
        service.ownerRoute(page: Self.path, title: Self.title, handler)
    }

    private func page(
        _ request: HTTPRequest, _ owner: Owner, status: HTTPStatus = .ok,
        configure: (inout OwnerAppPasswordsPage) -> Void = { _ in }
    ) async throws -> HTTPResponse {
        try await service.respond(request, status: status, configure: configure) { token in
            OwnerAppPasswordsPage(
                owner: owner, csrfToken: token, passwords: try await store.list(.owner(owner.id)),
                inboxes: try await inboxes.inboxes(ownerID: owner.id), appleMail: appleMail != nil)
        }
    }

    /// What making one came to: the password and its secret, or the page that says why not.
    private enum Made {
        case made(AppPassword, secret: String)
        case refused(HTTPResponse)
    }

    /// Makes an app password of `owner` for the inbox the form's `inbox` names, after the fresh-proof check.
    private func make(
        _ request: HTTPRequest, _ owner: Owner, name: String, doors: AppPasswordDoors?, client: String?
    ) async throws -> Made {
        guard try await service.freshlyProven(request) else {
            return .refused(HTMLPage.redirect(to: OwnerService.proofPath(next: Self.path)))
        }
        let wanted = (request.formFields()["inbox"] ?? "").lowercased()
        guard let inbox = try await inboxes.inboxes(ownerID: owner.id).first(where: { $0.accountID == wanted }) else {
            return .refused(try await page(request, owner, status: .unprocessableEntity) { $0.error = "Choose one of your inboxes." })
        }
        guard let doors else {
            return .refused(try await page(request, owner, status: .unprocessableEntity) { $0.error = "Tick at least one door." })
        }
        do {
            let (password, secret) = try await store.create(
                holder: .owner(owner.id), accountID: inbox.accountID, address: inbox.address, name: name, doors: doors,
                now: clock())
            await service.audit.owner(
                owner.id, .appPasswordCreated, target: password.id, client: client,
                details: AuditDetails.json(["inbox": inbox.address, "doors": doors.names.joined(separator: ",")]))
            return .made(password, secret: secret)
        } catch let error as AppPasswordStore.CreationError {
            let (status, words) = Self.refusal(error)
            return .refused(try await page(request, owner, status: status) { $0.error = words })
        }
    }

    /// The status and sentence of a refused make.
    static func refusal(_ error: AppPasswordStore.CreationError) -> (HTTPStatus, String) {
        switch error {
        case .invalidName:
            (.unprocessableEntity, "Give it a name of one line (at most \(AppPasswordStore.maxNameLength) characters).")
        case .noDoor: (.unprocessableEntity, "Tick at least one door.")
        case .tooMany: (.conflict, "You have the most app passwords one may have: revoke one first.")
        }
    }

    private func create(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        let doors = AppPasswordDoors(names: request.formValues("door"))
        switch try await make(request, owner, name: request.formFields()["name"] ?? "", doors: doors, client: client) {
        case .refused(let response): return response
        case .made(let password, let secret):
            return try await page(request, owner, status: .created) {
                $0.created = (password, secret)
                $0.notice = PageNotice("Made \(password.name).", .success)
            }
        }
    }

    private func appleMailProfile(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        guard let appleMail else { return BrowserPage.message(.notFound, Self.title, "No Apple Mail profile here.") }
        switch try await make(request, owner, name: "Apple Mail", doors: [.imap, .submission], client: client) {
        case .refused(let response): return response
        case .made(let password, let secret):
            // Served as received bytes are (an attachment, nosniff, no-store): the profile holds a password.
            return ReceivedBytes.response(
                appleMail(password.address, secret), contentType: "application/x-apple-aspen-config",
                .attachment(filename: "postern-\(Self.fileSafe(password.address)).mobileconfig"))
        }
    }

    /// The local part of `address` cut to letters, digits, `.`, `-` and `_` (`mail` when nothing is left), for a file
    /// name.
    static func fileSafe(_ address: String) -> String {
        let local = address.split(separator: "@").first.map(String.init) ?? ""
        let safe = local.utf8.filter { byte in
            (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte | 0x20) || "._-".utf8.contains(byte)
        }
        return safe.isEmpty ? "mail" : String(decoding: safe, as: UTF8.self)
    }

    private func revoke(
        _ request: HTTPRequest, _ parameters: RouteParameters, _ owner: Owner, _ client: String?
    ) async throws -> HTTPResponse {
        guard let id = parameters["id"], try await store.revoke(id: id, holder: .owner(owner.id)) else {
            return BrowserPage.message(.notFound, Self.title, "No such app password.")
        }
        await service.audit.owner(owner.id, .appPasswordRevoked, target: id, client: client)
        return try await page(request, owner) {
            $0.notice = PageNotice("Revoked: it opens nothing from now on.", .success)
        }
    }
}

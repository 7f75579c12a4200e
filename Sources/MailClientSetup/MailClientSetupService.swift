import Foundation
import Directory
import HTTP1
import ServerKit

/// How mail clients configure themselves for a Postern mailbox (issue 87 item 4): Thunderbird's autoconfig and
/// Outlook's autodiscover, each answering for an address on a domain this server holds mail for with the IMAP, POP3
/// and SMTP servers it listens on. An address on any other domain gets the protocol's "not here": Thunderbird's 404,
/// autodiscover's error 600. Nothing is read but the domain: the answer is the same for every mailbox of a domain.
public struct MailClientSetupService: Sendable {
    /// The servers announced, with the host clients reach them at.
    public let servers: [MailClientServer]
    /// The name clients show for the account's provider.
    public let displayName: String
    /// Whether mail for `domain` is kept here (the local directory's answer).
    public let serves: @Sendable (String) -> Bool

    public init(servers: [MailClientServer], displayName: String, serves: @escaping @Sendable (String) -> Bool) {
        self.servers = servers
        self.displayName = displayName
        self.serves = serves
    }

    /// The routes: `GET /.well-known/autoconfig/mail/config-v1.1.xml` and `GET /mail/config-v1.1.xml` (both take
    /// `emailaddress`), and `POST /autodiscover/autodiscover.xml` (also spelled `/Autodiscover/Autodiscover.xml`, as
    /// Outlook writes it).
    public func register(into router: inout ContextRouter) {
        for path in ["/.well-known/autoconfig/mail/config-v1.1.xml", "/mail/config-v1.1.xml"] {
            router.add(.GET, path, .immediate { request, _, _ in autoconfig(request) })
        }
        for path in ["/autodiscover/autodiscover.xml", "/Autodiscover/Autodiscover.xml"] {
            router.add(.POST, path, .immediate { request, _, _ in autodiscover(request) })
        }
    }

    /// Thunderbird's document for the domain of `emailaddress`; 400 without one, 404 for a domain not served here.
    func autoconfig(_ request: HTTPRequest) -> HTTPResponse {
        guard let address = request.queryItems.first(where: { $0.name == "emailaddress" })?.value,
            let domain = AddressParts(address)?.domain
        else {
            return .text(.badRequest, "autoconfig needs ?emailaddress=user@domain\n")
        }
        guard serves(domain) else { return .text(.notFound, "no mail for \(domain) here\n") }
        return Self.xml(ThunderbirdAutoconfig.document(domain: domain, servers: servers, displayName: displayName))
    }

    /// Outlook's answer for the request's address; error 600 (with 200, as Exchange answers) for a request without
    /// an address or with one on a domain not served here.
    func autodiscover(_ request: HTTPRequest) -> HTTPResponse {
        guard let address = OutlookAutodiscover.address(inRequest: request.body),
            let domain = AddressParts(address)?.domain, serves(domain)
        else {
            return Self.xml(OutlookAutodiscover.invalidRequest)
        }
        return Self.xml(OutlookAutodiscover.document(address: address, servers: servers))
    }

    /// Apple Mail's profile (``AppleMobileConfig``) of the mailbox at `address` with `password`, fresh ids each time;
    /// nil when this server announces no IMAP or no submission server.
    public func appleMailProfile(address: String, password: String) -> [UInt8]? {
        let ids = AppleMobileConfig.Identifiers(
            profile: UUID().uuidString.uppercased(), account: UUID().uuidString.uppercased())
        return AppleMobileConfig.document(
            address: address, password: password, servers: servers, displayName: displayName, ids: ids
        ).map { Array($0.text.utf8) }
    }

    private static func xml(_ document: HTML) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, body: Array(document.text.utf8))
        response.headers.replaceOrAdd("Content-Type", "application/xml; charset=utf-8")
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }
}

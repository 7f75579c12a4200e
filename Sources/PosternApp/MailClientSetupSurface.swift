import Foundation
import HTTP1
import MailClientSetup
import Owners
import ServerKit

/// Thunderbird's autoconfig and Outlook's autodiscover (issue 87 item 4), answering with the mail listeners this
/// runtime bound (IMAP and POP3 incoming, submission outgoing), at the public URL's host: the name clients already reach the server by. A listener that is off is
/// not announced; with none on, the routes still answer (a document without servers), so that a client learns it
/// has nothing to set up rather than a 404 it would read as "ask elsewhere".
enum MailClientSetupSurface {
    static func register(into router: inout ContextRouter, _ context: SurfaceContext) {
        service(context).register(into: &router)
    }

    static func service(_ context: SurfaceContext) -> MailClientSetupService {
        MailClientSetupService(
            servers: context.mailClientServers, displayName: "Postern",
            serves: { [directory = context.mail.directory] in directory.serves(domain: $0) })
    }

    /// The Apple Mail profile's maker for the owner pages (issue 87 item 4), from the same servers autoconfig
    /// announces; nil when no IMAP or no submission listener is on (Mail needs both).
    static func appleMailProfile(_ context: SurfaceContext) -> OwnerAppPasswordPages.AppleMailProfile? {
        let kinds = Set(context.mailClientServers.map(\.kind))
        guard kinds.contains(.imap), kinds.contains(.smtp) else { return nil }
        let setup = service(context)
        return { address, password in setup.appleMailProfile(address: address, password: password) ?? [] }
    }

    /// The servers of `sockets` that are on, at the host of `identity`'s base URL.
    static func servers(_ sockets: ListenerSockets, identity: PublicIdentity) -> [MailClientServer] {
        let host = URLComponents(string: identity.baseURL)?.host ?? "localhost"
        let announced: [(ListenerSockets.Name, MailClientServer.Kind, MailClientServer.Security)] = [
            (.imaps, .imap, .implicitTLS), (.imap, .imap, .startTLS), (.pop3s, .pop3, .implicitTLS),
            (.pop3, .pop3, .startTLS), (.submissions, .smtp, .implicitTLS), (.submission, .smtp, .startTLS),
        ]
        return announced.compactMap { name, kind, security in
            sockets[name].map { MailClientServer(kind, host: host, port: $0.port, security: security) }
        }
    }
}

import Foundation
import HTTP1
import MailClientSetup
import ServerKit

/// Thunderbird's autoconfig and Outlook's autodiscover (issue 87 item 4), answering with the mail listeners this
/// runtime bound (IMAP and POP3 incoming, submission outgoing), at the public URL's host: the name clients already reach the server by. A listener that is off is
/// not announced; with none on, the routes still answer (a document without servers), so that a client learns it
/// has nothing to set up rather than a 404 it would read as "ask elsewhere".
enum MailClientSetupSurface {
    static func register(into router: inout ContextRouter, _ context: SurfaceContext) {
        MailClientSetupService(
            servers: context.mailClientServers, displayName: "Postern",
            serves: { [directory = context.mail.directory] in directory.serves(domain: $0) }
        ).register(into: &router)
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

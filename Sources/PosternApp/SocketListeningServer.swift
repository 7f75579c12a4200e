import HTTPServer
import MailDoorServer
import SMTPServer
import SocketServer

/// A server a listening service (``RuntimeService/listening(_:_:on:group:)``) starts on a socket bound beforehand and
/// shuts down: HTTP's, SMTP's, IMAP's and POP3's.
protocol SocketListeningServer: Sendable {
    /// Starts serving `listener`; returns its port.
    @discardableResult func start(on listener: ListeningSocket) throws -> Int
    /// Stops accepting, finishes what is in flight and returns when every connection is closed.
    func shutdown() async
}

extension HTTPServer: SocketListeningServer {}
extension SMTPServer: SocketListeningServer {}
extension MailServer: SocketListeningServer {}

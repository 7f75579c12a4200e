import SASL
import SocketServer

/// What every session of one SMTP server shares: the configuration, the fixed replies built once, and
/// the timeouts in nanoseconds.
///
/// Immutable, so `Sendable` without locks.
public final class SMTPSessionShared: Sendable {
    /// The server configuration.
    public let configuration: SMTPServerConfiguration
    /// `220 <hostname> ESMTP Postern`.
    let greeting: [UInt8]
    /// The answer to `HELO`.
    let heloReply: [UInt8]
    /// The answers to `EHLO`, by whether they offer STARTTLS (+2) and AUTH (+1); see ``ehloReply(startTLS:auth:)``.
    private let ehloReplies: [[UInt8]]
    /// The SASL mechanisms `AUTH` takes (``mechanisms(_:)``).
    let mechanisms: [String]
    let commandTimeout: UInt64
    let writeTimeout: UInt64
    let sessionLimit: UInt64
    /// Told of stored and refused messages and recipients, on the loop; nil for nobody.
    let observer: (@Sendable (SMTPSessionEvent) -> Void)?

    /// Builds the replies of `configuration`; the hostname is cut to printable ASCII so that it cannot
    /// break a reply line.
    /// - Parameters:
    ///   - configuration: limits, timeouts and the greeting's hostname.
    ///   - observer: told of stored and refused messages (metrics), on the loop; must not block.
    public init(configuration: SMTPServerConfiguration, observer: (@Sendable (SMTPSessionEvent) -> Void)? = nil) {
        self.configuration = configuration
        self.observer = observer
        let hostname = String(decoding: configuration.hostname.utf8.filter { $0 > 0x20 && $0 < 0x7F }, as: UTF8.self)
        greeting = Array("220 \(hostname) ESMTP Postern\r\n".utf8)
        heloReply = Array("250 \(hostname)\r\n".utf8)
        ehloReplies = [(false, false), (false, true), (true, false), (true, true)].map { startTLS, auth in
            var lines = [hostname, "SIZE \(configuration.maxMessageBytes)", "8BITMIME", "PIPELINING"]
            if startTLS { lines.append("STARTTLS") }
            if auth { lines.append((["AUTH"] + Self.mechanisms(configuration)).joined(separator: " ")) }
            if configuration.submission { lines.append("DSN") }
            lines.append("ENHANCEDSTATUSCODES")
            let text = lines.enumerated().map { index, line in
                "250\(index == lines.count - 1 ? " " : "-")\(line)\r\n"
            }.joined()
            return Array(text.utf8)
        }
        mechanisms = Self.mechanisms(configuration)
        commandTimeout = ConnectionTimeouts.nanoseconds(configuration.commandTimeout)
        writeTimeout = ConnectionTimeouts.nanoseconds(configuration.writeTimeout)
        sessionLimit = ConnectionTimeouts.nanoseconds(configuration.maxSessionDuration)
    }

    /// The SASL mechanisms `AUTH` offers: `PLAIN` and `LOGIN`, and the OAuth ones on a submission listener.
    static func mechanisms(_ configuration: SMTPServerConfiguration) -> [String] {
        PasswordSASL.mechanisms + (configuration.submission ? BearerSASL.mechanisms : [])
    }

    /// The answer to `EHLO` offering STARTTLS when `startTLS` and AUTH when `auth`, built once.
    func ehloReply(startTLS: Bool, auth: Bool) -> [UInt8] {
        ehloReplies[(startTLS ? 2 : 0) + (auth ? 1 : 0)]
    }
}

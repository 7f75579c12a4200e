/// One single-line SMTP reply: a code, an enhanced status code (RFC 3463) and text. The texts say
/// what went wrong in the protocol, never what the mail store said.
struct SMTPReply: Equatable {
    /// The three-digit reply code.
    let code: Int
    /// The line after the code.
    let text: String

    init(_ code: Int, _ text: String) {
        self.code = code
        self.text = text
    }

    /// Whether the reply counts against `maxProtocolErrors`: the client spoke wrongly.
    var isProtocolError: Bool { [500, 501, 503, 555].contains(code) }

    /// The reply with its CRLF.
    var bytes: [UInt8] { Array("\(code) \(text)\r\n".utf8) }

    static let ok = SMTPReply(250, "2.0.0 Ok")
    static let senderOK = SMTPReply(250, "2.1.0 Ok")
    static let recipientOK = SMTPReply(250, "2.1.5 Ok")
    static let startData = SMTPReply(354, "End data with <CR><LF>.<CR><LF>")
    static let bye = SMTPReply(221, "2.0.0 Bye")
    static let cannotVerify = SMTPReply(252, "2.5.0 Cannot VRFY user, but will accept message and attempt delivery")
    static let unrecognized = SMTPReply(500, "5.5.2 Error: command not recognized")
    static let bareLineFeed = SMTPReply(500, "5.5.2 Error: bare <LF> received")
    static let lineTooLong = SMTPReply(500, "5.5.2 Error: line too long")
    static let notImplemented = SMTPReply(502, "5.5.1 Error: command not implemented")
    static let needHello = SMTPReply(503, "5.5.1 Error: send HELO/EHLO first")
    static let nestedMail = SMTPReply(503, "5.5.1 Error: nested MAIL command")
    static let needMail = SMTPReply(503, "5.5.1 Error: need MAIL command")
    static let needRecipient = SMTPReply(503, "5.5.1 Error: need RCPT command")
    static let unsupportedParameter = SMTPReply(555, "5.5.4 Unsupported parameter")
    static let tooLarge = SMTPReply(552, "5.3.4 Message size exceeds fixed maximum message size")
    static let insufficientStorage = SMTPReply(452, "4.3.1 Insufficient system storage, try again later")
    static let tooManyRecipients = SMTPReply(452, "4.5.3 Error: too many recipients")
    static let unknownLocal = SMTPReply(550, "5.1.1 Mailbox unavailable: no such user here")
    static let relayDenied = SMTPReply(550, "5.7.1 Relay not permitted")
    static let mailboxFull = SMTPReply(552, "5.2.2 Mailbox full")
    static let unreadableContent = SMTPReply(554, "5.6.0 Message content not accepted")
    static let notStored = SMTPReply(451, "4.3.0 Error: message not stored, try again later")
    static let timeout = SMTPReply(421, "4.4.2 Error: timeout exceeded")
    static let sessionTooLong = SMTPReply(421, "4.4.2 Error: session time limit exceeded")
    static let shuttingDown = SMTPReply(421, "4.3.2 Service shutting down")
    static let tooManyConnections = SMTPReply(421, "4.3.2 Too many connections, try again later")
    static let tooManyErrors = SMTPReply(421, "4.7.0 Error: too many errors")
    static let readyForTLS = SMTPReply(220, "2.0.0 Ready to start TLS")
    static let tlsActive = SMTPReply(503, "5.5.1 Error: TLS already active")
    static let authenticated = SMTPReply(235, "2.7.0 Authentication successful")
    static let alreadyAuthenticated = SMTPReply(503, "5.5.1 Error: already authenticated")
    static let authInTransaction = SMTPReply(503, "5.5.1 Error: AUTH not allowed during a mail transaction")
    static let encryptionRequired = SMTPReply(538, "5.7.11 Encryption required for requested authentication mechanism")
    static let unknownMechanism = SMTPReply(504, "5.5.4 Unrecognized authentication type")
    static let authCancelled = SMTPReply(501, "5.7.0 Authentication cancelled")
    static let badBase64 = SMTPReply(501, "5.5.2 Cannot decode response")
    static let badCredentials = SMTPReply(535, "5.7.8 Authentication credentials invalid")
    static let temporaryAuthenticationFailure = SMTPReply(454, "4.7.0 Temporary authentication failure, try again later")
    static let startTLSFirst = SMTPReply(530, "5.7.0 Must issue a STARTTLS command first")
    static let authRequired = SMTPReply(530, "5.7.0 Authentication required")
    static let tooManyAuthenticationFailures = SMTPReply(421, "4.7.0 Error: too many failed authentication attempts")
    /// `334` with a base64 challenge (empty for PLAIN; `Username:`/`Password:` for LOGIN).
    static func challenge(_ base64: String) -> SMTPReply { SMTPReply(334, base64) }

    /// `501` naming the form the command takes.
    static func syntax(_ form: String) -> SMTPReply { SMTPReply(501, "5.5.4 Syntax: \(form)") }

    /// `250` for a stored message, with the sink's id reduced to printable ASCII (at most 64 characters),
    /// so that no id can end the reply line early.
    static func queued(_ id: String) -> SMTPReply {
        let safe = String(decoding: id.utf8.filter { $0 > 0x20 && $0 < 0x7F }.prefix(64), as: UTF8.self)
        return SMTPReply(250, "2.0.0 OK queued as \(safe)")
    }
}

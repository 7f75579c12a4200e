/// One data item of a `FETCH` response (RFC 9051 §7.5.2), as the driver found it.
public enum IMAPFetchItem: Sendable, Equatable {
    case flags([IMAPFlag])
    case uid(UInt32)
    case internalDate(IMAPDateTime)
    case rfc822Size(UInt64)
    case envelope(IMAPEnvelope)
    /// `BODYSTRUCTURE` (`extensible`) or `BODY` (without extension data).
    case bodyStructure(IMAPBodyStructure, extensible: Bool)
    /// `BODY[section]<origin>`: the bytes (nil for `NIL`), `origin` the partial's start when one was asked.
    case body(IMAPSection, origin: UInt64?, [UInt8]?)
    /// `BINARY[part]<origin>`: the decoded bytes, sent as `literal8` when they hold a NUL.
    case binary(part: [Int], origin: UInt64?, [UInt8]?)
    case binarySize(part: [Int], UInt64)
    /// `RFC822`, `RFC822.HEADER`, `RFC822.TEXT` (IMAP4rev1).
    case rfc822([UInt8]?)
    case rfc822Header([UInt8]?)
    case rfc822Text([UInt8]?)
}

/// A message's envelope (RFC 9051 §7.5.2 `envelope`): header fields as the message has them (their raw bytes,
/// encoded words left encoded), the address fields parsed.
public struct IMAPEnvelope: Sendable, Equatable {
    public var date: [UInt8]?
    public var subject: [UInt8]?
    public var from: [IMAPAddress]
    /// Defaults to `from` when the message has no `Sender:`, as the RFC asks the server to do.
    public var sender: [IMAPAddress]
    /// Defaults to `from` when the message has no `Reply-To:`.
    public var replyTo: [IMAPAddress]
    public var to: [IMAPAddress]
    public var cc: [IMAPAddress]
    public var bcc: [IMAPAddress]
    public var inReplyTo: [UInt8]?
    public var messageID: [UInt8]?

    public init(
        date: [UInt8]? = nil, subject: [UInt8]? = nil, from: [IMAPAddress] = [], sender: [IMAPAddress]? = nil,
        replyTo: [IMAPAddress]? = nil, to: [IMAPAddress] = [], cc: [IMAPAddress] = [], bcc: [IMAPAddress] = [],
        inReplyTo: [UInt8]? = nil, messageID: [UInt8]? = nil
    ) {
        self.date = date
        self.subject = subject
        self.from = from
        self.sender = sender ?? from
        self.replyTo = replyTo ?? from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.inReplyTo = inReplyTo
        self.messageID = messageID
    }
}

/// One `address` of an envelope: display name, source route, local part and domain. A group is written as an
/// address with no host whose mailbox is the group's name, its members, and one with neither (RFC 9051 §9).
public struct IMAPAddress: Sendable, Equatable {
    public var name: [UInt8]?
    /// The obsolete source route (`adl`); nearly always nil.
    public var route: [UInt8]?
    public var mailbox: [UInt8]?
    public var host: [UInt8]?

    public init(name: [UInt8]? = nil, route: [UInt8]? = nil, mailbox: [UInt8]?, host: [UInt8]?) {
        self.name = name
        self.route = route
        self.mailbox = mailbox
        self.host = host
    }

    /// `name <mailbox@host>`, from text.
    public init(name: String?, mailbox: String, host: String) {
        self.init(name: name.map { Array($0.utf8) }, mailbox: Array(mailbox.utf8), host: Array(host.utf8))
    }
}

/// Who a message says it is from: the mailboxes of every `From`, `Sender`, `Reply-To`, `Resent-From` and
/// `Resent-Sender` field (not only the first of each), read from a strict ``HeaderSection`` with the strict
/// ``AddressListParser``: what a submission's sender check decides on, and what the outbound preparer checks again on
/// the bytes that leave.
public struct Originators: Sendable, Equatable {
    /// Every `From` field's mailboxes (a mailbox-list: no groups).
    public var from: [MailAddress]
    /// Every `Sender` field's mailbox (one each).
    public var sender: [MailAddress]
    /// Every `Reply-To` field's mailboxes, groups' members included.
    public var replyTo: [MailAddress]
    /// Every `Resent-From` field's mailboxes (RFC 5322 3.6.6: who resent the message; a mailbox-list).
    public var resentFrom: [MailAddress]
    /// Every `Resent-Sender` field's mailbox (one each).
    public var resentSender: [MailAddress]

    /// Reads the originator fields of `message`.
    /// - Throws: ``OriginatorError`` naming the header rule or the field and the address rule it broke.
    public init(message: [UInt8]) throws(OriginatorError) {
        let header: HeaderSection
        do {
            header = try HeaderSection(message: message)
        } catch {
            throw .header(error)
        }
        try self.init(header: header)
    }

    /// Reads the originator fields of `header`.
    /// - Throws: ``OriginatorError/field(_:_:)``.
    public init(header: HeaderSection) throws(OriginatorError) {
        func read<T>(_ name: String, _ parse: (String) throws(AddressListError) -> T) throws(OriginatorError) -> [T] {
            var values: [T] = []
            for value in header.values(name) {
                do {
                    values.append(try parse(value))
                } catch {
                    throw .field(name, error)
                }
            }
            return values
        }
        from = try read("From") { (value) throws(AddressListError) in try AddressListParser.mailboxList(value) }
            .flatMap { $0 }
        sender = try read("Sender") { (value) throws(AddressListError) in try AddressListParser.mailbox(value) }
        replyTo = try read("Reply-To") { (value) throws(AddressListError) in try AddressListParser.addressList(value) }
            .flatMap { $0.flatMap(\.mailboxes) }
        resentFrom = try read("Resent-From") { (value) throws(AddressListError) in
            try AddressListParser.mailboxList(value)
        }.flatMap { $0 }
        resentSender = try read("Resent-Sender") { (value) throws(AddressListError) in
            try AddressListParser.mailbox(value)
        }
    }
}

/// Why a message's originators could not be read.
public enum OriginatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The header section breaks a rule of ``HeaderSection``.
    case header(HeaderSectionError)
    /// A field (`From`, `Sender`, `Reply-To`, `Resent-From`, `Resent-Sender`) is not an address list of the RFC.
    case field(String, AddressListError)

    public var description: String {
        switch self {
        case .header(let error): "The header of the email holds \(error)."
        case .field(let name, let error): "The \(name) field of the email holds \(error)."
        }
    }
}

/// The delivery status notification parameters of RFC 3461 a client gives `MAIL FROM` (`RET`, `ENVID`) on a listener
/// that offers `DSN` (the submission listener), kept with the transaction and handed to the sink with the envelope.
public struct SMTPMailParameters: Sendable, Equatable {
    /// `RET`: what a failure notice returns of the message.
    public enum Return: String, Sendable, Equatable {
        /// `RET=FULL`: the whole message.
        case full = "FULL"
        /// `RET=HDRS`: its header only.
        case headers = "HDRS"
    }

    /// `RET`, nil when not given.
    public var ret: Return?
    /// `ENVID`, xtext-decoded (at most 100 characters as sent, RFC 3461 §4.4), nil when not given.
    public var envelopeID: String?

    /// - Parameters: see the properties.
    public init(ret: Return? = nil, envelopeID: String? = nil) {
        self.ret = ret
        self.envelopeID = envelopeID
    }

    /// Whether any parameter was given.
    var isEmpty: Bool { ret == nil && envelopeID == nil }
}

/// The RFC 3461 parameters a client gives one `RCPT TO` (`NOTIFY`, `ORCPT`), kept beside the recipient.
public struct SMTPRecipientParameters: Sendable, Equatable {
    /// `NOTIFY`: when the sender wants a notice for this recipient.
    public enum Notify: Sendable, Equatable {
        /// `NOTIFY=NEVER`.
        case never
        /// `NOTIFY=` a comma-separated list of these, each at most once.
        case on(Set<Condition>)
    }

    /// One condition of `NOTIFY`.
    public enum Condition: String, Sendable, Hashable, CaseIterable {
        case success = "SUCCESS"
        case failure = "FAILURE"
        case delay = "DELAY"
    }

    /// `NOTIFY`, nil when not given.
    public var notify: Notify?
    /// `ORCPT`: the address type (`rfc822`) and the original recipient, xtext-decoded; nil when not given.
    public var originalRecipient: (type: String, address: String)?

    /// - Parameters: see the properties.
    public init(notify: Notify? = nil, originalRecipient: (type: String, address: String)? = nil) {
        self.notify = notify
        self.originalRecipient = originalRecipient
    }

    /// Whether any parameter was given.
    var isEmpty: Bool { notify == nil && originalRecipient == nil }

    public static func == (a: Self, b: Self) -> Bool {
        a.notify == b.notify && a.originalRecipient?.type == b.originalRecipient?.type
            && a.originalRecipient?.address == b.originalRecipient?.address
    }
}

/// RFC 3461's readers of the parameters' values. Pure.
enum SMTPDSN {
    /// Longest `ENVID` and `ORCPT` value as sent (RFC 3461 §4.2, §4.4: 100 and 500 characters).
    static let maxEnvelopeID = 100
    static let maxOriginalRecipient = 500

    /// `xtext` decoded (RFC 3461 §4): printable ASCII but `+` and `=`, and `+XX` (two upper-case hex digits) for any
    /// byte; nil when it is not xtext or decodes to something that is not UTF-8.
    static func xtext(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "="):
                return nil
            case 33...126:
                bytes.append(byte)
            default:
                return nil
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// An upper-case hex digit's value.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `NOTIFY`'s value: `NEVER`, or one to three distinct conditions; nil otherwise.
    static func notify(_ value: String) -> SMTPRecipientParameters.Notify? {
        let words = value.uppercased().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if words == ["NEVER"] { return .never }
        let conditions = words.compactMap(SMTPRecipientParameters.Condition.init(rawValue:))
        guard conditions.count == words.count, Set(conditions).count == conditions.count else { return nil }
        return .on(Set(conditions))
    }

    /// `ORCPT`'s value, `addr-type ";" xtext`; nil when it is not one.
    static func originalRecipient(_ value: String) -> (type: String, address: String)? {
        guard value.utf8.count <= maxOriginalRecipient, let semicolon = value.firstIndex(of: ";") else { return nil }
        let type = String(value[..<semicolon])
        guard !type.isEmpty, type.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let address = xtext(String(value[value.index(after: semicolon)...])), !address.isEmpty
        else { return nil }
        return (type, address)
    }
}

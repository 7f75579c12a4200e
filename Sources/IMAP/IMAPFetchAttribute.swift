/// One data item a `FETCH` asks for (RFC 9051 §6.4.5); the macros `ALL`, `FAST` and `FULL` are expanded when read.
public enum IMAPFetchAttribute: Sendable, Equatable {
    case envelope, flags, internalDate, uid
    /// `RFC822.SIZE`.
    case rfc822Size
    /// `RFC822`, `RFC822.HEADER`, `RFC822.TEXT` (IMAP4rev1): `BODY[]`, `BODY.PEEK[HEADER]`, `BODY[TEXT]` by other
    /// names, answered under their own.
    case rfc822, rfc822Header, rfc822Text
    /// `BODY` (the structure without extension data) and `BODYSTRUCTURE`.
    case bodyStructure(extensible: Bool)
    /// `BODY[section]<partial>` or `BODY.PEEK[...]` (`peek`: `\Seen` is not set).
    case body(IMAPSection, partial: IMAPPartial?, peek: Bool)
    /// `BINARY[part]<partial>` or `BINARY.PEEK[...]` (RFC 3516): the part's content transfer-decoded.
    case binary(part: [Int], partial: IMAPPartial?, peek: Bool)
    /// `BINARY.SIZE[part]`.
    case binarySize(part: [Int])

    /// `ALL`: `FLAGS INTERNALDATE RFC822.SIZE ENVELOPE`.
    public static let all: [IMAPFetchAttribute] = [.flags, .internalDate, .rfc822Size, .envelope]
    /// `FAST`: `FLAGS INTERNALDATE RFC822.SIZE`.
    public static let fast: [IMAPFetchAttribute] = [.flags, .internalDate, .rfc822Size]
    /// `FULL`: `ALL` and `BODY`.
    public static let full: [IMAPFetchAttribute] = all + [.bodyStructure(extensible: false)]
}

/// A `section-spec` (RFC 9051 §6.4.5): a part number (`1.2`; empty for the whole message) and what of it.
public struct IMAPSection: Sendable, Equatable {
    /// The part's path, 1-based (`[1, 2]` for `1.2`); empty for the message itself.
    public var part: [Int]
    /// What of the part; nil for all of it.
    public var text: IMAPSectionText?

    public init(part: [Int] = [], text: IMAPSectionText? = nil) {
        self.part = part
        self.text = text
    }
}

/// The text part of a section: the header, some of its fields, the body, or a part's MIME header.
public enum IMAPSectionText: Sendable, Equatable {
    case header
    /// `HEADER.FIELDS (...)`: the names in upper case.
    case headerFields([String])
    /// `HEADER.FIELDS.NOT (...)`.
    case headerFieldsNot([String])
    case text
    /// `MIME`: the MIME header of a part (only with a part number).
    case mime
}

/// `<start.length>`: `length` bytes from `start`.
public struct IMAPPartial: Sendable, Equatable {
    public var start: UInt64
    public var length: UInt64

    public init(start: UInt64, length: UInt64) {
        self.start = start
        self.length = length
    }
}

/// A message's MIME structure as `BODY` and `BODYSTRUCTURE` describe it (RFC 9051 §7.5.2 `body`).
public indirect enum IMAPBodyStructure: Sendable, Equatable {
    /// A leaf part (or a `message/rfc822` part with the message inside).
    case part(IMAPBodyPart)
    /// `multipart/<subtype>` and its parts, in order.
    case multipart([IMAPBodyStructure], subtype: String, extension: IMAPMultipartExtension?)
}

/// One leaf part: `body-type-basic`, `body-type-text` or `body-type-msg`.
public struct IMAPBodyPart: Sendable, Equatable {
    /// What kind of leaf, with what that kind adds.
    public indirect enum Kind: Sendable, Equatable {
        case basic
        /// `text/*`: the body's line count.
        case text(lines: UInt64)
        /// `message/rfc822` (or `message/global`): the inner message's envelope, structure and line count.
        case message(IMAPEnvelope, IMAPBodyStructure, lines: UInt64)
    }

    public var type: String
    public var subtype: String
    /// `body-fld-param`: attribute and value pairs, in order.
    public var parameters: [(String, String)]
    public var id: String?
    public var description: String?
    /// `Content-Transfer-Encoding` (`7BIT` when absent).
    public var encoding: String
    /// The body's size in its transfer encoding.
    public var size: UInt64
    public var kind: Kind
    /// `BODYSTRUCTURE`'s extension data; nil writes none.
    public var `extension`: IMAPBodyExtension?

    public init(
        type: String, subtype: String, parameters: [(String, String)] = [], id: String? = nil,
        description: String? = nil, encoding: String = "7BIT", size: UInt64, kind: Kind = .basic,
        extension: IMAPBodyExtension? = nil
    ) {
        self.type = type
        self.subtype = subtype
        self.parameters = parameters
        self.id = id
        self.description = description
        self.encoding = encoding
        self.size = size
        self.kind = kind
        self.extension = `extension`
    }

    public static func == (a: IMAPBodyPart, b: IMAPBodyPart) -> Bool {
        a.type == b.type && a.subtype == b.subtype && a.parameters.elementsEqual(b.parameters, by: ==)
            && a.id == b.id && a.description == b.description && a.encoding == b.encoding && a.size == b.size
            && a.kind == b.kind && a.extension == b.extension
    }
}

/// A leaf's extension data (`body-ext-1part`): MD5, disposition, language, location.
public struct IMAPBodyExtension: Sendable, Equatable {
    public var md5: String?
    public var disposition: IMAPBodyDisposition?
    public var language: [String]
    public var location: String?

    public init(
        md5: String? = nil, disposition: IMAPBodyDisposition? = nil, language: [String] = [],
        location: String? = nil
    ) {
        self.md5 = md5
        self.disposition = disposition
        self.language = language
        self.location = location
    }
}

/// A multipart's extension data (`body-ext-mpart`): parameters, disposition, language, location.
public struct IMAPMultipartExtension: Sendable, Equatable {
    public var parameters: [(String, String)]
    public var disposition: IMAPBodyDisposition?
    public var language: [String]
    public var location: String?

    public init(
        parameters: [(String, String)] = [], disposition: IMAPBodyDisposition? = nil, language: [String] = [],
        location: String? = nil
    ) {
        self.parameters = parameters
        self.disposition = disposition
        self.language = language
        self.location = location
    }

    public static func == (a: IMAPMultipartExtension, b: IMAPMultipartExtension) -> Bool {
        a.parameters.elementsEqual(b.parameters, by: ==) && a.disposition == b.disposition && a.language == b.language
            && a.location == b.location
    }
}

/// `Content-Disposition`: its value (`attachment`) and parameters.
public struct IMAPBodyDisposition: Sendable, Equatable {
    public var value: String
    public var parameters: [(String, String)]

    public init(_ value: String, parameters: [(String, String)] = []) {
        self.value = value
        self.parameters = parameters
    }

    public static func == (a: IMAPBodyDisposition, b: IMAPBodyDisposition) -> Bool {
        a.value == b.value && a.parameters.elementsEqual(b.parameters, by: ==)
    }
}

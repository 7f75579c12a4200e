/// A response code (RFC 9051 §7.1, RFC 5530, RFC 4315's UIDPLUS): the bracketed, machine-readable part of a status
/// response, `[UIDVALIDITY 3857529045]`.
public enum IMAPResponseCode: Sendable, Equatable {
    case alert
    case alreadyExists
    case appendUID(uidValidity: UInt32, uid: UInt32)
    case authenticationFailed
    case authorizationFailed
    case badCharset([String])
    case cannot
    case capability([String])
    case clientBug
    case closed
    case contactAdmin
    case copyUID(uidValidity: UInt32, source: IMAPSequenceSet, destination: IMAPSequenceSet)
    case corruption
    case expired
    case expungeIssued
    case hasChildren
    case inUse
    case limit
    case nonExistent
    case noPermission
    case overQuota
    case parse
    /// `PERMANENTFLAGS (...)`: the flags a client may change for good; `allowsKeywords` adds `\*`.
    case permanentFlags([IMAPFlag], allowsKeywords: Bool)
    case privacyRequired
    case readOnly
    case readWrite
    case serverBug
    case tooBig
    case tryCreate
    case uidNext(UInt32)
    case uidNotSticky
    case uidValidity(UInt32)
    case unavailable
    case unknownCTE
    /// `USEATTR` (RFC 6154 §3): a `CREATE` refused for the special-use attribute it asked for.
    case useAttr
    /// `UNSEEN n` (IMAP4rev1): the first unseen message's number.
    case unseen(UInt32)

    /// The code as it is written between the brackets.
    public var text: String {
        switch self {
        case .alert: return "ALERT"
        case .alreadyExists: return "ALREADYEXISTS"
        case .appendUID(let validity, let uid): return "APPENDUID \(validity) \(uid)"
        case .authenticationFailed: return "AUTHENTICATIONFAILED"
        case .authorizationFailed: return "AUTHORIZATIONFAILED"
        case .badCharset(let charsets):
            return charsets.isEmpty ? "BADCHARSET" : "BADCHARSET (\(charsets.joined(separator: " ")))"
        case .cannot: return "CANNOT"
        case .capability(let names): return (["CAPABILITY"] + names).joined(separator: " ")
        case .clientBug: return "CLIENTBUG"
        case .closed: return "CLOSED"
        case .contactAdmin: return "CONTACTADMIN"
        case .copyUID(let validity, let source, let destination):
            return "COPYUID \(validity) \(source.text) \(destination.text)"
        case .corruption: return "CORRUPTION"
        case .expired: return "EXPIRED"
        case .expungeIssued: return "EXPUNGEISSUED"
        case .hasChildren: return "HASCHILDREN"
        case .inUse: return "INUSE"
        case .limit: return "LIMIT"
        case .nonExistent: return "NONEXISTENT"
        case .noPermission: return "NOPERM"
        case .overQuota: return "OVERQUOTA"
        case .parse: return "PARSE"
        case .permanentFlags(let flags, let allowsKeywords):
            return "PERMANENTFLAGS (" + (flags.map(\.text) + (allowsKeywords ? ["\\*"] : [])).joined(separator: " ")
                + ")"
        case .privacyRequired: return "PRIVACYREQUIRED"
        case .readOnly: return "READ-ONLY"
        case .readWrite: return "READ-WRITE"
        case .serverBug: return "SERVERBUG"
        case .tooBig: return "TOOBIG"
        case .tryCreate: return "TRYCREATE"
        case .uidNext(let uid): return "UIDNEXT \(uid)"
        case .uidNotSticky: return "UIDNOTSTICKY"
        case .uidValidity(let validity): return "UIDVALIDITY \(validity)"
        case .useAttr: return "USEATTR"
        case .unavailable: return "UNAVAILABLE"
        case .unknownCTE: return "UNKNOWN-CTE"
        case .unseen(let number): return "UNSEEN \(number)"
        }
    }
}

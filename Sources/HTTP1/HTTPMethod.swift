/// An HTTP request method.
///
/// The common methods have their own cases; anything else a client sends (a valid token) arrives as
/// `.other` with its exact spelling. Methods are case-sensitive (RFC 9110 §9.1): `get` is `.other("get")`.
public enum HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    /// `GET`
    case GET
    /// `HEAD`: answered like `GET` without a body.
    case HEAD
    /// `POST`
    case POST
    /// `PUT`
    case PUT
    /// `DELETE`
    case DELETE
    /// `PATCH`
    case PATCH
    /// `OPTIONS`
    case OPTIONS
    /// Any other method token, spelled as received.
    case other(String)

    /// Creates a method from its wire spelling; known spellings map to their own case.
    /// - Parameter rawValue: the method token, case-sensitive.
    public init(rawValue: String) {
        switch rawValue {
        case "GET": self = .GET
        case "HEAD": self = .HEAD
        case "POST": self = .POST
        case "PUT": self = .PUT
        case "DELETE": self = .DELETE
        case "PATCH": self = .PATCH
        case "OPTIONS": self = .OPTIONS
        default: self = .other(rawValue)
        }
    }

    /// The wire spelling of the method.
    public var rawValue: String {
        switch self {
        case .GET: return "GET"
        case .HEAD: return "HEAD"
        case .POST: return "POST"
        case .PUT: return "PUT"
        case .DELETE: return "DELETE"
        case .PATCH: return "PATCH"
        case .OPTIONS: return "OPTIONS"
        case .other(let name): return name
        }
    }

    /// The wire spelling of the method.
    public var description: String { rawValue }

    /// Equality by wire spelling, so that `.other("GET")` equals `.GET`; the seven standard methods
    /// compare by case, without comparing strings (the hot path compares methods per request).
    @inlinable @inline(__always)
    public static func == (lhs: HTTPMethod, rhs: HTTPMethod) -> Bool {
        switch (lhs.standardIndex, rhs.standardIndex) {
        case (let left?, let right?): return left == right
        case (nil, nil): return lhs.rawValue == rhs.rawValue
        default: return false
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        if let index = standardIndex {
            hasher.combine(index)
        } else {
            hasher.combine(rawValue)
        }
    }

    /// 0 to 6 for the seven standard methods however constructed (`.other("GET")` too); nil for any
    /// other token.
    @inlinable
    public var standardIndex: Int? {
        switch self {
        case .GET: return 0
        case .HEAD: return 1
        case .POST: return 2
        case .PUT: return 3
        case .DELETE: return 4
        case .PATCH: return 5
        case .OPTIONS: return 6
        case .other(let name): return HTTPMethod.standardIndex(spelled: name)
        }
    }

    /// `standardIndex` of a method spelled `name` (the rare `.other` that spells a standard method).
    @usableFromInline
    static func standardIndex(spelled name: String) -> Int? {
        switch HTTPMethod(rawValue: name) {
        case .other: return nil
        case let standard: return standard.standardIndex
        }
    }
}

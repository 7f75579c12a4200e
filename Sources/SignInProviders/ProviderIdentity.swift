import JSON

/// Who a provider says signed in, whichever its kind: the pair an identity is keyed on (issuer, subject), and what it
/// says of the email, which decides sign-up and linking but never finds an account.
public struct ProviderIdentity: Sendable, Equatable {
    /// The provider's issuer (GitHub: its web URL).
    public var issuer: String
    /// The person's identifier at the provider (`sub`; GitHub: the numeric user id).
    public var subject: String
    /// The email the provider gives, if any.
    public var email: String?
    /// Whether the provider says it verified ``email``.
    public var emailVerified: Bool
    /// The person's name, for a new account's display.
    public var name: String?

    /// Why a provider's user document was refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// Not the JSON expected, or too long.
        case malformed
        /// The userinfo's `sub` is not the id_token's (OpenID Connect Core section 5.3.2): it describes someone else.
        case subjectMismatch
    }

    /// The largest user document read, in bytes.
    public static let maximumDocumentLength = 64 * 1024

    /// Creates an identity.
    public init(issuer: String, subject: String, email: String?, emailVerified: Bool, name: String?) {
        self.issuer = issuer
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
    }

    /// What a verified id_token says.
    public init(_ claims: IDTokenClaims) {
        self.init(
            issuer: claims.issuer, subject: claims.subject, email: claims.email, emailVerified: claims.emailVerified,
            name: claims.name)
    }

    /// This identity with the provider's userinfo answer merged in, only when its `sub` is this identity's: its
    /// email replaces the id_token's together with its `email_verified` (the JSON boolean `true` only), and its name
    /// the id_token's; a member it leaves out leaves the id_token's.
    /// - Throws: ``Refusal/subjectMismatch``, ``Refusal/malformed``.
    public func merging(userinfo body: [UInt8]) throws(Refusal) -> ProviderIdentity {
        let userinfo = try Self.object(body)
        guard let subject = userinfo["sub"]?.stringValue else { throw .malformed }
        guard subject.utf8.elementsEqual(self.subject.utf8) else { throw .subjectMismatch }
        var merged = self
        if let email = userinfo["email"]?.stringValue {
            merged.email = email
            merged.emailVerified = userinfo["email_verified"]?.boolValue == true
        }
        if let name = userinfo["name"]?.stringValue { merged.name = name }
        return merged
    }

    /// The identity GitHub's `GET /user` and `GET /user/emails` describe: the numeric `id` as the subject, and the
    /// `primary` address with its `verified` (a private primary address is there too; another verified address is
    /// not taken for it).
    /// - Parameters:
    ///   - webURL: GitHub's web URL, the identity's issuer.
    ///   - user: `GET /user`'s answer.
    ///   - emails: `GET /user/emails`' answer.
    /// - Throws: ``Refusal/malformed``.
    public static func gitHub(webURL: String, user: [UInt8], emails: [UInt8]) throws(Refusal) -> ProviderIdentity {
        let profile = try object(user)
        guard let id = profile["id"]?.intValue, id > 0 else { throw .malformed }
        guard emails.count <= maximumDocumentLength,
            let list = (try? JSONValue.parse(emails, limits: .init(maximumDepth: 4)))?.arrayValue
        else { throw .malformed }
        let primary = list.first { $0["primary"]?.boolValue == true }
        let name = profile["name"]?.stringValue ?? profile["login"]?.stringValue
        return ProviderIdentity(
            issuer: webURL, subject: String(id), email: primary?["email"]?.stringValue,
            emailVerified: primary?["verified"]?.boolValue == true, name: name)
    }

    /// `body` as a JSON object.
    private static func object(_ body: [UInt8]) throws(Refusal) -> JSONValue {
        guard body.count <= maximumDocumentLength,
            let parsed = try? JSONValue.parse(body, limits: .init(maximumDepth: 8)), parsed.objectValue != nil
        else { throw .malformed }
        return parsed
    }
}

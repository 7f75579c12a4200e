import JSON

/// A pairwise relying party's `sector_identifier_uri` (OpenID Connect Core 1.0 section 8.1, Registration 1.0 sections
/// 2 and 5): a URL whose document is a JSON array of redirect URIs. A pairwise party whose redirect URIs name more than
/// one host gives one, and its host is the sector: every host of the party's gets the one subject per owner. The
/// document must list every redirect URI the party registers, so that nobody can claim a sector whose owner did not
/// list them. Pure: the operation that makes the client fetches the document.
public enum OIDCSectorIdentifier {
    /// Why a document does not make a sector.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The URL names no host.
        case noHost
        /// The document is not a JSON array of strings.
        case notAList
        /// This redirect URI is not in the document.
        case unlisted(String)

        public var description: String {
            switch self {
            case .noHost: "it names no host"
            case .notAList: "its document is not a JSON array of redirect URIs"
            case .unlisted(let uri): "its document does not list the redirect URI '\(uri)'"
            }
        }
    }

    /// The pairwise subject type of the party whose `sector_identifier_uri` is `uri` and answered `document`, when the
    /// document lists every one of `redirectURIs` (compared byte for byte, as redirect URIs are): sector `uri`'s host,
    /// lower-cased.
    public static func subjectType(uri: String, document: [UInt8], redirectURIs: [String]) throws(Failure)
        -> OIDCRelyingParty.SubjectType
    {
        guard let host = OIDCRelyingParty.SubjectType.host(of: uri), !host.isEmpty else { throw .noHost }
        guard let list = try? JSONValue.parse(document).arrayValue else { throw .notAList }
        let listed = list.compactMap(\.stringValue)
        guard listed.count == list.count else { throw .notAList }
        if let missing = redirectURIs.first(where: { !listed.contains($0) }) { throw .unlisted(missing) }
        return .pairwise(sector: host)
    }
}

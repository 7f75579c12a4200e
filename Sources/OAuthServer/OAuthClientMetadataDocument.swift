import ServerKit

/// Client ID metadata documents (contract 1.7): a client whose `client_id` is an https URL, whose registration the
/// server fetches from that URL. Pure rules; the fetch and the cache are ``OAuthClientDirectory``'s.
public enum OAuthClientMetadataDocument {
    /// Whether `clientID` names a metadata document: `https://host[:port]/path` with a path beyond `/`, no query,
    /// fragment or user info, no dot segments, printable ASCII, at most 2,048 bytes.
    public static func isDocumentURL(_ clientID: String) -> Bool {
        guard clientID.utf8.count <= 2_048, clientID.hasPrefix("https://"),
            clientID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !clientID.contains("?"), !clientID.contains("#"),
            OAuthClientRegistration.redirectURIAllowed(clientID)
        else { return false }
        let rest = clientID.dropFirst(8)
        guard let slash = rest.firstIndex(of: "/"), !rest[..<slash].contains("@") else { return false }
        let segments = rest[slash...].split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return !segments.allSatisfy(\.isEmpty) && !segments.contains { $0 == "." || $0 == ".." }
    }

    /// The registration a fetched document `body` makes for `url`.
    /// - Throws: ``OAuthError`` `invalid_client` when the document is not a JSON object whose `client_id` is
    ///   exactly `url`, names a shared secret or an authentication method other than `none`, or breaks a rule of
    ///   dynamic registration (redirect URIs, grant and response types, scope).
    public static func registration(url: String, body: [UInt8], configuration: OAuthConfiguration)
        throws(OAuthError) -> OAuthClientRegistration
    {
        guard let members = RequestBody(json: body) else {
            throw .invalidClient("The client's metadata document is not a JSON object.")
        }
        guard case .string(let clientID)? = members["client_id"], clientID == url else {
            throw .invalidClient("The client's metadata document names another client_id.")
        }
        guard members["client_secret"] == nil, members["client_secret_expires_at"] == nil else {
            throw .invalidClient("A client metadata document may not carry a client secret.")
        }
        let registration: OAuthClientRegistration
        do {
            registration = try OAuthClientRegistration(members: members, configuration: configuration)
        } catch {
            throw .invalidClient("The client's metadata document is refused: \(error.description)")
        }
        guard registration.authMethod == .none else {
            throw .invalidClient("A client metadata document must use token_endpoint_auth_method none.")
        }
        return registration
    }

    /// Seconds to keep a document: `max-age` of `cacheControl` clamped to 5 minutes to a day; an hour without
    /// one; 5 minutes for `no-store` or `no-cache`.
    public static func lifetime(cacheControl: String?) -> Int64 {
        let directives = (cacheControl ?? "").lowercased().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if directives.contains("no-store") || directives.contains("no-cache") { return 300 }
        for directive in directives where directive.hasPrefix("max-age=") {
            if let seconds = Int64(directive.dropFirst(8)) { return min(max(seconds, 300), 86_400) }
        }
        return 3_600
    }
}

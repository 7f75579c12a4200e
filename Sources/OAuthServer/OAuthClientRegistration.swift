import JSON
import ServerKit

/// A dynamic client registration request (RFC 7591) checked against the rules of contract 1.6 and
/// docs/decisions/0024: an omitted `token_endpoint_auth_method` is `none`; redirect URIs are https, or http on
/// a loopback host, and required unless the client takes only device codes (RFC 8628); unknown members are ignored. Pure: the endpoint stores what this accepts.
public struct OAuthClientRegistration: Sendable, Equatable {
    /// The redirect URIs, deduplicated, in order; compared by exact string equality at authorize.
    public let redirectURIs: [String]
    /// How the client authenticates; `none` when the request named no method.
    public let authMethod: OAuthClient.AuthMethod
    /// Of `authorization_code`, `refresh_token` and (when the device flow is on) ``deviceCodeGrantType``; the first two
    /// when the request named none.
    public let grantTypes: [String]
    /// `["code"]`.
    public let responseTypes: [String]
    /// The name the consent page shows, if any.
    public let clientName: String?
    /// The registered scopes; nil when the request named none.
    public let scopes: [String]?

    static let grantTypesSupported = ["authorization_code", "refresh_token"]
    /// The device authorization grant's type (RFC 8628 section 3.4).
    public static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Checks `body` (the raw request body).
    /// - Throws: ``OAuthError`` `invalid_redirect_uri` for a missing, empty or refused redirect URI list,
    ///   `invalid_client_metadata` for anything else.
    public init(body: [UInt8], configuration: OAuthConfiguration) throws(OAuthError) {
        guard let members = RequestBody(json: body) else {
            throw .invalidClientMetadata("The body must be a JSON object.")
        }
        try self.init(members: members, configuration: configuration)
    }

    /// Checks the members of a JSON object already parsed (a client metadata document).
    init(members body: RequestBody, configuration: OAuthConfiguration) throws(OAuthError) {
        let supported = Self.grantTypesSupported + (configuration.deviceAuthorization ? [Self.deviceCodeGrantType] : [])
        grantTypes = try Self.strings(body, "grant_types", allowed: supported) ?? Self.grantTypesSupported
        guard grantTypes.contains("authorization_code") || grantTypes.contains(Self.deviceCodeGrantType) else {
            throw .invalidClientMetadata(
                "grant_types must include authorization_code"
                    + (configuration.deviceAuthorization ? " or \(Self.deviceCodeGrantType)." : "."))
        }
        // A device-flow client (RFC 8628) redirects nowhere: redirect URIs only when it takes codes.
        let uris: [RequestBody.Value]
        switch body["redirect_uris"] {
        case nil where !grantTypes.contains("authorization_code"): uris = []
        case .array(let values)? where !values.isEmpty || !grantTypes.contains("authorization_code"): uris = values
        default: throw .invalidRedirectURI("redirect_uris must be a non-empty array of strings.")
        }
        guard uris.count <= configuration.maxRedirectURIs else {
            throw .invalidRedirectURI("At most \(configuration.maxRedirectURIs) redirect URIs.")
        }
        var redirectURIs: [String] = []
        for case let value in uris {
            guard case .string(let uri) = value else {
                throw .invalidRedirectURI("redirect_uris must be a non-empty array of strings.")
            }
            guard uri.utf8.count <= configuration.maxRedirectURILength, Self.redirectURIAllowed(uri) else {
                throw .invalidRedirectURI(
                    "Each redirect URI must be an absolute https URI whose host is a DNS name (LDH labels, an IDN "
                        + "in its xn-- form), or http on localhost, 127.0.0.1 or [::1]; a port of 1 to 65535; "
                        + "no fragment.")
            }
            if !redirectURIs.contains(uri) { redirectURIs.append(uri) }
        }
        do {
            switch try body.string("token_endpoint_auth_method") {
            case nil, "none"?: authMethod = .none
            case "client_secret_post"?: authMethod = .clientSecretPost
            default:
                throw OAuthError.invalidClientMetadata(
                    "token_endpoint_auth_method must be none or client_secret_post.")
            }
            clientName = try body.string("client_name")
            if let name = clientName, name.count > configuration.maxClientNameLength || name.contains(where: \.isNewline) {
                throw OAuthError.invalidClientMetadata(
                    "client_name must be one line of at most \(configuration.maxClientNameLength) characters.")
            }
            if let scope = try body.string("scope") {
                guard let scopes = OAuthScope.parse(scope) else {
                    throw OAuthError.invalidClientMetadata("scope may name only mail.read and mail.send.")
                }
                self.scopes = scopes
            } else {
                scopes = nil
            }
        } catch let error as OAuthError {
            throw error
        } catch {
            throw .invalidClientMetadata("Member \((error as? RequestBody.TypeMismatch)?.name ?? "") has the wrong type.")
        }
        responseTypes = try Self.strings(body, "response_types", allowed: ["code"]) ?? ["code"]
        self.redirectURIs = redirectURIs
    }

    /// The registration as the 201 answer and `oauth_clients.metadata` echo it (without the client's id or secret).
    var echoed: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("redirect_uris", .array(redirectURIs.map(JSONValue.string))),
            ("token_endpoint_auth_method", .string(authMethod.rawValue)),
            ("grant_types", .array(grantTypes.map(JSONValue.string))),
            ("response_types", .array(responseTypes.map(JSONValue.string))),
        ]
        if let clientName { members.append(("client_name", .string(clientName))) }
        if let scopes { members.append(("scope", .string(OAuthScope.text(scopes)))) }
        return members
    }

    /// The array of strings `name`, each in `allowed`; nil when absent.
    private static func strings(_ body: RequestBody, _ name: String, allowed: [String]) throws(OAuthError) -> [String]? {
        switch body[name] {
        case nil, .null?: return nil
        case .array(let values)?:
            var result: [String] = []
            for value in values {
                guard case .string(let text) = value, allowed.contains(text) else {
                    throw .invalidClientMetadata("\(name) may hold only \(allowed.joined(separator: ", ")).")
                }
                if !result.contains(text) { result.append(text) }
            }
            guard !result.isEmpty else { throw .invalidClientMetadata("\(name) must not be empty.") }
            return result
        default:
            throw .invalidClientMetadata("\(name) must be an array of strings.")
        }
    }

    /// Whether `uri` may be a redirect URI (``OAuthRedirectURI``): https with an LDH or IDNA host, or http on
    /// `localhost`, `127.0.0.1` or `[::1]`; a port of 1 to 65535; no fragment, user info, whitespace or control
    /// characters.
    public static func redirectURIAllowed(_ uri: String) -> Bool { OAuthRedirectURI.allowed(uri) }
}

import Directory
import Foundation
import JWT
import Logging
import OAuthGrants
import PosternApp
import Time

/// The operator commands behind `postern oauth client create|list|rotate-secret|delete`: the confidential clients of
/// the client credentials grant and of introspection (issue 86).
extension Operations {
    /// What `oauth client create` was asked for.
    public struct OAuthClientRequest: Sendable {
        public var name: String
        public var scope: String
        public var inboxes: [String]
        public var introspection: Bool
        /// `client_secret_basic`, `client_secret_post` or `private_key_jwt`.
        public var authMethod: String
        /// The contents of `--jwks FILE`.
        public var jwks: String?
        public var jwksURI: String?
        /// OpenID relying party (issue 88): its redirect URIs; empty: not a relying party.
        public var redirectURIs: [String] = []
        /// Where RP-initiated logout may send the browser back.
        public var postLogoutRedirectURIs: [String] = []
        /// Where back-channel logout tokens are POSTed.
        public var backchannelLogoutURI: String?
        /// `RS256` (default), `EdDSA` or `ES256`.
        public var idTokenAlgorithm = "RS256"
        /// `public` (default) or `pairwise` (OpenID Connect Core 1.0 section 8).
        public var subjectType = "public"
        /// A pairwise party's `sector_identifier_uri`: its host is the sector, and its document (a JSON array) lists
        /// every redirect URI. Needed when they name more than one host.
        public var sectorIdentifierURI: String?
        /// The operator's own app: no consent page.
        public var firstParty = false
        /// A legacy client that sends no PKCE (Roundcube 1.6).
        public var legacyNoPKCE = false
        /// Who may sign in: `all`, `listed` (the owners of ``signInOwners``) or `second-factor`.
        public var signIn = "all"
        /// The owners (emails or ids) of a `listed` policy.
        public var signInOwners: [String] = []
        /// The mail scopes the relying party may ask for (`mail.read`, `mail.send`, space-separated); nil: its tokens
        /// open userinfo only.
        public var mailAccess: String?

        public init(
            name: String, scope: String, inboxes: [String], introspection: Bool, authMethod: String, jwks: String?,
            jwksURI: String?
        ) {
            self.name = name
            self.scope = scope
            self.inboxes = inboxes
            self.introspection = introspection
            self.authMethod = authMethod
            self.jwks = jwks
            self.jwksURI = jwksURI
        }
    }

    /// Why `oauth client create` refused its request: words for the operator.
    public struct OAuthClientRequestError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes a confidential client; returns the lines to print, its secret among them (shown this once).
    /// - Throws: ``OAuthClientRequestError`` for a bad scope, method, key set or inbox; storage errors.
    public static func createOAuthClient(
        configuration: PosternConfiguration, _ request: OAuthClientRequest, logger: Logger
    ) async throws -> [String] {
        let made = try checked(request, inboxDomain: configuration.agent.inboxDomain)
        let database = try migratedDatabase(configuration, logger: logger)
        var request = request
        if !request.signInOwners.isEmpty {
            // A listed sign-in policy names owners by email: their ids, before anything is made.
            var ids: [String] = []
            for email in request.signInOwners {
                guard let owner = try await owner(email: email, database, configuration) else {
                    throw OAuthClientRequestError(description: "no owner has the email '\(email)' (--sign-in-owner)")
                }
                ids.append(owner.id)
            }
            request.signInOwners = ids
        }
        // A sector_identifier_uri's document, fetched once, before anything is made.
        var sectorDocument: [UInt8]?
        if let uri = request.sectorIdentifierURI, request.subjectType == "pairwise", acceptableURI(uri) {
            sectorDocument = try await fetchSectorDocument(uri, configuration: configuration)
        }
        _ = try relyingParty(request, clientID: "", name: made.name, sectorDocument: sectorDocument)  // refused first
        let client: OAuthConfidentialClient
        let secret: String?
        do {
            (client, secret) = try await OAuthConfidentialClients(database: database).create(made, now: unixNow())
        } catch OAuthConfidentialClients.CreationError.unknownInbox(let inbox) {
            throw OAuthClientRequestError(description: "no live agent inbox is '\(inbox)'")
        }
        var party: OIDCRelyingParty?
        if let wanted = try relyingParty(
            request, clientID: client.clientID, name: client.name, sectorDocument: sectorDocument)
        {
            party = try await OIDCRelyingParties(database: database).record(wanted)
        }
        if let party {
            // A relying party's settings, legacy-no-pkce above all (the only clients that may omit PKCE), are audited.
            recordOperator(
                database, target: "oauth client create",
                details: [
                    "client_id": client.clientID, "name": client.name, "auth": client.authMethod.rawValue,
                    "openid": "relying party", "redirect_uris": party.redirectURIs.joined(separator: " "),
                    "first_party": String(party.firstParty), "legacy_no_pkce": String(party.legacyNoPKCE),
                    "sign_in": party.signIn.word, "mail_access": party.mailAccess?.scope ?? "none",
                ], logger: logger)
        } else {
            recordOperator(
                database, target: "oauth client create",
                details: ["client_id": client.clientID, "name": client.name, "auth": client.authMethod.rawValue],
                logger: logger)
        }
        var lines = [describe(client, party: party), "client_id: \(client.clientID)"]
        if let secret { lines.append("client_secret: \(secret)  (shown once; only its digest is kept)") }
        return lines
    }

    /// One line per confidential client, oldest first.
    public static func listOAuthClients(configuration: PosternConfiguration, logger: Logger) async throws -> [String] {
        let database = try migratedDatabase(configuration, logger: logger)
        let parties = OIDCRelyingParties(database: database)
        var lines: [String] = []
        for client in try await OAuthConfidentialClients(database: database).list() {
            lines.append(describe(client, party: try await parties.party(id: client.clientID)))
        }
        return lines
    }

    /// A new secret for `clientID`, the old one working `overlap` more seconds (the configuration's default when
    /// nil); nil when there is no such client with a secret.
    public static func rotateOAuthClientSecret(
        configuration: PosternConfiguration, clientID: String, overlap: Int64?, logger: Logger
    ) async throws -> String? {
        let database = try migratedDatabase(configuration, logger: logger)
        let overlap = overlap ?? configuration.oauth.secretRotationOverlap
        guard
            let secret = try await OAuthConfidentialClients(database: database).rotateSecret(
                clientID: clientID, overlap: overlap, now: unixNow())
        else { return nil }
        recordOperator(
            database, target: "oauth client rotate-secret",
            details: ["client_id": clientID, "overlap_seconds": String(overlap)], logger: logger)
        return secret
    }

    /// Deletes `clientID` and its grants (its tokens stop working at once). False when none.
    public static func deleteOAuthClient(configuration: PosternConfiguration, clientID: String, logger: Logger)
        async throws -> Bool
    {
        let database = try migratedDatabase(configuration, logger: logger)
        let deleted = try await OAuthConfidentialClients(database: database).delete(clientID: clientID)
        if deleted {
            recordOperator(database, target: "oauth client delete", details: ["client_id": clientID], logger: logger)
        }
        return deleted
    }

    /// The store's request for `request`: a known method, a scope of `mail.read`/`mail.send`, inboxes by id,
    /// username or address on the agent domain, keys exactly for `private_key_jwt` (an inline JWKS with a usable key,
    /// or an https `jwks_uri` of at most 2,048 bytes).
    static func checked(_ request: OAuthClientRequest, inboxDomain: String) throws -> OAuthConfidentialClients.Request {
        guard let method = OAuthConfidentialClient.AuthMethod(rawValue: request.authMethod) else {
            throw OAuthClientRequestError(
                description: "--auth must be client_secret_basic, client_secret_post or private_key_jwt")
        }
        guard let permissions = MailPermissions(scope: request.scope) else {
            throw OAuthClientRequestError(description: "--scope may name only mail.read and mail.send")
        }
        let name = request.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 200, !name.contains(where: \.isNewline) else {
            throw OAuthClientRequestError(description: "--name must be one line of 1 to 200 characters")
        }
        guard !request.inboxes.isEmpty || request.introspection || !request.redirectURIs.isEmpty else {
            throw OAuthClientRequestError(
                description: "name at least one --inbox (or make it --introspection only, or a --redirect-uri app)")
        }
        let suffix = "@" + inboxDomain.lowercased()
        let inboxes = request.inboxes.map { inbox in
            inbox.lowercased().hasSuffix(suffix) ? String(inbox.dropLast(suffix.count)) : inbox
        }
        if method == .privateKeyJWT {
            switch (request.jwks, request.jwksURI) {
            case (let jwks?, nil):
                guard let keys = try? PublishedKeySet(jwks: Array(jwks.utf8)), !keys.keys.isEmpty else {
                    throw OAuthClientRequestError(
                        description: "--jwks holds no usable public key (RS256, ES256 or EdDSA JWKs in a keys array)")
                }
            case (nil, let uri?):
                // The server fetches it through the outbound fetcher, whose address policy vets the host it names.
                guard uri.hasPrefix("https://"), uri.utf8.count <= 2_048 else {
                    throw OAuthClientRequestError(description: "--jwks-uri must be an https URL")
                }
            default:
                throw OAuthClientRequestError(description: "private_key_jwt needs exactly one of --jwks and --jwks-uri")
            }
        } else if request.jwks != nil || request.jwksURI != nil {
            throw OAuthClientRequestError(description: "--jwks and --jwks-uri are for --auth private_key_jwt")
        }
        return OAuthConfidentialClients.Request(
            name: name, authMethod: method, permissions: permissions, inboxes: inboxes,
            introspection: request.introspection, jwks: request.jwks, jwksURI: request.jwksURI)
    }

    /// The document at a `sector_identifier_uri`, through the fetcher of the documents OAuth clients publish (its
    /// address policy: no loopback or private address but for `POSTERN_OAUTH_CIMD_ALLOW_HOSTS`, no redirect, 16 KiB).
    /// - Throws: ``OAuthClientRequestError`` when it does not answer 200.
    static func fetchSectorDocument(_ uri: String, configuration: PosternConfiguration) async throws -> [UInt8] {
        guard let document = try await Surfaces.sectorIdentifierDocument(configuration, uri: uri) else {
            throw OAuthClientRequestError(
                description: "--sector-identifier-uri '\(uri)' could not be fetched (it must answer 200, no redirect)")
        }
        return document
    }

    /// The relying party `request` asks for (nil without `--redirect-uri`): absolute http(s) URIs without a fragment
    /// (http only on a loopback host), a known algorithm and sign-in policy; a pairwise party's sector from
    /// `sectorDocument`, what its `sector_identifier_uri` answered, when it gave one.
    static func relyingParty(
        _ request: OAuthClientRequest, clientID: String, name: String, sectorDocument: [UInt8]? = nil
    ) throws -> OIDCRelyingParty? {
        guard !request.redirectURIs.isEmpty else {
            let openIDOnly = request.firstParty || request.legacyNoPKCE || !request.postLogoutRedirectURIs.isEmpty
                || request.backchannelLogoutURI != nil || request.signIn != "all" || !request.signInOwners.isEmpty
                || request.subjectType != "public" || request.mailAccess != nil || request.sectorIdentifierURI != nil
            if openIDOnly { throw OAuthClientRequestError(description: "the OpenID options need --redirect-uri") }
            return nil
        }
        let others = [request.backchannelLogoutURI, request.sectorIdentifierURI].compactMap { $0 }
        for uri in request.redirectURIs + request.postLogoutRedirectURIs + others where !acceptableURI(uri) {
            throw OAuthClientRequestError(
                description: "'\(uri)' must be an https URL without a fragment (http only on 127.0.0.1, [::1] or localhost)")
        }
        guard let algorithm = OIDCRelyingParty.SigningAlgorithm(rawValue: request.idTokenAlgorithm) else {
            throw OAuthClientRequestError(description: "--id-token-alg must be RS256, EdDSA or ES256")
        }
        let subjectType: OIDCRelyingParty.SubjectType
        switch request.subjectType {
        case "public":
            if request.sectorIdentifierURI != nil {
                throw OAuthClientRequestError(description: "--sector-identifier-uri is for --subject-type pairwise")
            }
            subjectType = .public
        case "pairwise":
            // A mail grant's access token is the mail doors' readable JWT, whose sub is the owner's id: a pairwise
            // party given mail would learn the id its pairwise subject hides.
            if request.mailAccess != nil {
                throw OAuthClientRequestError(
                    description: "--subject-type pairwise cannot go with --mail-access: a mail access token carries "
                        + "the owner's id as its subject, which would give the app the id its pairwise subject hides")
            }
            // The sector (Core section 8.1) is the sector_identifier_uri's host, or the redirect URIs' one host.
            if let uri = request.sectorIdentifierURI {
                guard let sectorDocument else {
                    throw OAuthClientRequestError(description: "--sector-identifier-uri '\(uri)' could not be fetched")
                }
                do {
                    subjectType = try OIDCSectorIdentifier.subjectType(
                        uri: uri, document: sectorDocument, redirectURIs: request.redirectURIs)
                } catch {
                    throw OAuthClientRequestError(description: "--sector-identifier-uri '\(uri)': \(error)")
                }
            } else {
                guard let pairwise = OIDCRelyingParty.SubjectType.pairwise(redirectURIs: request.redirectURIs) else {
                    throw OAuthClientRequestError(
                        description: "--subject-type pairwise needs every --redirect-uri on one host (its sector), "
                            + "or --sector-identifier-uri")
                }
                subjectType = pairwise
            }
        default: throw OAuthClientRequestError(description: "--subject-type must be public or pairwise")
        }
        let policy: OIDCRelyingParty.SignInPolicy
        switch (request.signIn, request.signInOwners.isEmpty) {
        case ("all", true): policy = .allOwners
        case ("listed", false): policy = .listed(request.signInOwners)
        case ("second-factor", true): policy = .secondFactor
        default:
            throw OAuthClientRequestError(
                description: "--sign-in must be all, listed (with --sign-in-owner) or second-factor")
        }
        var mail: MailPermissions?
        if let scope = request.mailAccess {
            guard let permissions = MailPermissions(scope: scope) else {
                throw OAuthClientRequestError(description: "--mail-access must be mail.read, mail.send or both")
            }
            mail = permissions
        }
        return OIDCRelyingParty(
            clientID: clientID, name: name, redirectURIs: request.redirectURIs,
            postLogoutRedirectURIs: request.postLogoutRedirectURIs, backchannelLogoutURI: request.backchannelLogoutURI,
            idTokenAlgorithm: algorithm, firstParty: request.firstParty, legacyNoPKCE: request.legacyNoPKCE,
            signIn: policy, subjectType: subjectType, mailAccess: mail)
    }

    /// An https URL (or http on a loopback host) of at most 2,048 bytes, with a host and no fragment.
    static func acceptableURI(_ uri: String) -> Bool {
        guard uri.utf8.count <= 2_048, !uri.contains("#"), !uri.contains(where: \.isWhitespace),
            let url = URL(string: uri), let host = url.host, !host.isEmpty
        else { return false }
        switch url.scheme {
        case "https": return true
        case "http": return ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased())
        default: return false
        }
    }

    /// `CLIENT-ID  NAME  METHOD  scope S  inboxes I,J  [introspection]  [openid ...]  created T`; a relying party's
    /// part names its redirect URIs, `first-party`, `legacy-no-pkce` (the clients that may omit PKCE), who may sign
    /// in and `mail-access` (the mail scopes its tokens may carry).
    static func describe(_ client: OAuthConfidentialClient, party: OIDCRelyingParty? = nil) -> String {
        var line = "\(client.clientID)  \(client.name)  \(client.authMethod.rawValue)  scope \(client.permissions.scope)"
        line += "  inboxes " + (client.inboxIDs.isEmpty ? "none" : client.inboxIDs.joined(separator: ","))
        if client.introspection { line += "  introspection" }
        if let party {
            line += "  openid redirect " + party.redirectURIs.joined(separator: ",") + " id_token "
                + party.idTokenAlgorithm.rawValue + " sign-in " + party.signIn.word
            if party.firstParty { line += " first-party" }
            if party.legacyNoPKCE { line += " legacy-no-pkce" }
            if case .pairwise(let sector) = party.subjectType { line += " pairwise " + sector }
            if let mail = party.mailAccess { line += " mail-access " + mail.names.joined(separator: ",") }
            if let uri = party.backchannelLogoutURI { line += " backchannel " + uri }
        }
        if let until = client.previousSecretUntil, until > unixNow() {
            line += "  old secret until \(RFC3339.format(until))"
        }
        return line + "  created \(RFC3339.format(client.createdAt))"
    }
}

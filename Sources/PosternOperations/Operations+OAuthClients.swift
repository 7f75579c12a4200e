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
        let client: OAuthConfidentialClient
        let secret: String?
        do {
            (client, secret) = try await OAuthConfidentialClients(database: database).create(made, now: unixNow())
        } catch OAuthConfidentialClients.CreationError.unknownInbox(let inbox) {
            throw OAuthClientRequestError(description: "no live agent inbox is '\(inbox)'")
        }
        recordOperator(
            database, target: "oauth client create",
            details: ["client_id": client.clientID, "name": client.name, "auth": client.authMethod.rawValue],
            logger: logger)
        var lines = [describe(client), "client_id: \(client.clientID)"]
        if let secret { lines.append("client_secret: \(secret)  (shown once; only its digest is kept)") }
        return lines
    }

    /// One line per confidential client, oldest first.
    public static func listOAuthClients(configuration: PosternConfiguration, logger: Logger) async throws -> [String] {
        try await OAuthConfidentialClients(database: migratedDatabase(configuration, logger: logger)).list()
            .map(describe)
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
        guard !request.inboxes.isEmpty || request.introspection else {
            throw OAuthClientRequestError(description: "name at least one --inbox (or make it --introspection only)")
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

    /// `CLIENT-ID  NAME  METHOD  scope S  inboxes I,J  [introspection]  created T`.
    static func describe(_ client: OAuthConfidentialClient) -> String {
        var line = "\(client.clientID)  \(client.name)  \(client.authMethod.rawValue)  scope \(client.permissions.scope)"
        line += "  inboxes " + (client.inboxIDs.isEmpty ? "none" : client.inboxIDs.joined(separator: ","))
        if client.introspection { line += "  introspection" }
        if let until = client.previousSecretUntil, until > unixNow() {
            line += "  old secret until \(RFC3339.format(until))"
        }
        return line + "  created \(RFC3339.format(client.createdAt))"
    }
}

import ArgumentParser
import Foundation
import PosternApp
import PosternOperations

/// `postern oauth client create|list|rotate-secret|delete`: the confidential clients that take tokens of their own
/// with the client credentials grant, and the resource servers that introspect tokens (issue 86).
struct OAuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth", abstract: "Manage the OAuth server's confidential clients.",
        subcommands: [Client.self])

    struct Client: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make, list, rotate and delete confidential clients (client credentials, introspection).",
            subcommands: [Create.self, List.self, RotateSecret.self, Delete.self])
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a confidential client: it takes tokens of its own (client_credentials) for its inboxes.",
            discussion: """
                The token's sub is the client; it reaches only the --inbox inboxes, with at most --scope. The secret \
                of client_secret_basic and client_secret_post is shown once (256 random bits, only its SHA-256 is \
                kept). private_key_jwt takes the client's public keys inline (--jwks FILE, a JWKS) or from \
                --jwks-uri, fetched by the server. --introspection lets it call /oauth/introspect (a resource \
                server); such a client may name no inbox.

                With --redirect-uri the client is an OpenID relying party of the owners (docs/oidc-provider.md): it \
                signs owners in with the authorization code flow and PKCE, gets ID tokens (--id-token-alg) and reads \
                /oauth/userinfo; --subject-type pairwise gives it subjects no app of another host can match \
                (--sector-identifier-uri, a JSON list of its redirect URIs, joins hosts into its sector); \
                --first-party skips the consent page; --legacy-no-pkce lets it omit PKCE (only for \
                an app that cannot send it, such as Roundcube 1.6: recorded in the audit trail); --sign-in decides \
                who may sign in (all, listed with --sign-in-owner, or second-factor: a passkey sign-in until owners \
                have TOTP); --mail-access lets it ask for mail.read and mail.send, whose access token then opens the \
                owner's mail at IMAP and submission (XOAUTH2, OAUTHBEARER) and comes with a refresh token (such as \
                Roundcube's); not with --subject-type pairwise, since that token's subject is the owner's id.
                """)
        @OptionGroup var options: DataOptions
        @Option(help: "The name it is listed by.") var name: String
        @Option(help: "The widest scope its tokens may carry: mail.read, mail.send or both (space-separated).")
        var scope = "mail.read mail.send"
        @Option(help: "An inbox its tokens reach (account id, username or address); repeat for more.")
        var inbox: [String] = []
        @Flag(help: "It may introspect tokens at /oauth/introspect (RFC 7662).") var introspection = false
        @Option(help: "client_secret_basic (default), client_secret_post or private_key_jwt.")
        var auth = "client_secret_basic"
        @Option(help: "private_key_jwt: a file holding the client's public keys (a JWKS).") var jwks: String?
        @Option(name: .customLong("jwks-uri"), help: "private_key_jwt: where the server fetches the client's keys.")
        var jwksURI: String?
        @Option(name: .customLong("redirect-uri"), help: "OpenID: a redirect URI of the relying party; repeat for more.")
        var redirectURI: [String] = []
        @Option(
            name: .customLong("post-logout-redirect-uri"), help: "OpenID: where RP-initiated logout may send back.")
        var postLogoutRedirectURI: [String] = []
        @Option(name: .customLong("backchannel-logout-uri"), help: "OpenID: where logout tokens are POSTed.")
        var backchannelLogoutURI: String?
        @Option(name: .customLong("id-token-alg"), help: "OpenID: RS256 (default), EdDSA or ES256.")
        var idTokenAlg = "RS256"
        @Option(
            name: .customLong("subject-type"),
            help: "OpenID: public (default: the owner's id) or pairwise (a subject of its own for its sector: the redirect URIs' host).")
        var subjectType = "public"
        @Option(
            name: .customLong("sector-identifier-uri"),
            help: "OpenID, pairwise: an https URL listing every redirect URI (JSON array); its host is the sector.")
        var sectorIdentifierURI: String?
        @Flag(name: .customLong("first-party"), help: "OpenID: the operator's own app; no consent page.")
        var firstParty = false
        @Flag(name: .customLong("legacy-no-pkce"), help: "OpenID: the app cannot send PKCE (Roundcube 1.6).")
        var legacyNoPKCE = false
        @Option(name: .customLong("sign-in"), help: "OpenID: who may sign in: all, listed or second-factor.")
        var signIn = "all"
        @Option(name: .customLong("sign-in-owner"), help: "OpenID: an owner (email) who may sign in; repeat.")
        var signInOwner: [String] = []
        @Option(
            name: .customLong("mail-access"),
            help: "OpenID: the mail scopes it may ask for (mail.read, mail.send or both, space-separated).")
        var mailAccess: String?

        func run() async throws {
            var keys: String?
            if let jwks {
                guard let bytes = FileManager.default.contents(atPath: jwks) else {
                    throw CommandFailure("cannot read \(jwks)")
                }
                keys = String(decoding: bytes, as: UTF8.self)
            }
            let (configuration, logger) = try await options.loadWithLogger()
            var request = Operations.OAuthClientRequest(
                name: name, scope: scope, inboxes: inbox, introspection: introspection, authMethod: auth, jwks: keys,
                jwksURI: jwksURI)
            request.redirectURIs = redirectURI
            request.postLogoutRedirectURIs = postLogoutRedirectURI
            request.backchannelLogoutURI = backchannelLogoutURI
            request.idTokenAlgorithm = idTokenAlg
            request.subjectType = subjectType
            request.sectorIdentifierURI = sectorIdentifierURI
            request.firstParty = firstParty
            request.legacyNoPKCE = legacyNoPKCE
            request.signIn = signIn
            request.signInOwners = signInOwner
            request.mailAccess = mailAccess
            do {
                Terminal.write(
                    lines: try await Operations.createOAuthClient(
                        configuration: configuration, request, logger: logger))
            } catch let error as Operations.OAuthClientRequestError {
                throw ValidationError(error.description)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the confidential clients, oldest first.")
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await options.printLines { try await Operations.listOAuthClients(configuration: $0, logger: $1) }
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret",
            abstract: "Give a client a new secret (shown once); the old one keeps working for the overlap.")
        @OptionGroup var options: DataOptions
        @Option(name: .customLong("client-id"), help: "The client.") var clientID: String
        @Option(help: "Seconds the old secret keeps working (default POSTERN_OAUTH_SECRET_OVERLAP_SECONDS, a day).")
        var overlap: Int64?

        func run() async throws {
            if let overlap, !(0...(30 * 86_400)).contains(overlap) {
                throw ValidationError("--overlap must be from 0 to 2592000 seconds")
            }
            let (configuration, logger) = try await options.loadWithLogger()
            guard
                let secret = try await Operations.rotateOAuthClientSecret(
                    configuration: configuration, clientID: clientID, overlap: overlap, logger: logger)
            else { throw CommandFailure("no client with a secret has id '\(clientID)'") }
            Terminal.write("client_secret: \(secret)  (shown once; the old one works until the overlap ends)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a client: its tokens stop working at once, on every instance.")
        @OptionGroup var options: DataOptions
        @Option(name: .customLong("client-id"), help: "The client.") var clientID: String

        func run() async throws {
            let (configuration, logger) = try await options.loadWithLogger()
            guard
                try await Operations.deleteOAuthClient(configuration: configuration, clientID: clientID, logger: logger)
            else { throw CommandFailure("no client has id '\(clientID)'") }
            Terminal.write("deleted \(clientID)")
        }
    }
}

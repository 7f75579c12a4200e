import HTTP1
import OAuthGrants
import Owners
import ServerKit

extension OAuthService {
    /// ``exchangeOpenIDCode(_:_:)`` on the calling thread (an event loop), answering through `reply` (from the
    /// writer's thread once the redemption is durable, or at once for a refusal). False, with nothing done, for any
    /// other request: another grant, a client that authenticates otherwise or is not a confidential client, a store
    /// whose reads are round trips (PostgreSQL). Throws the refusals the task's exchange throws, in its order.
    func exchangeOpenIDCodeNow(
        _ request: HTTPRequest, fields: [String: String],
        then reply: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) throws -> Bool {
        guard let provider = openID, let database = provider.signIns.callingThread, confidentialClientsServed,
            fields["grant_type"] == "authorization_code"
        else { return false }
        let credential = try OAuthClientCredential.read(authorization: request.headers["Authorization"], fields: fields)
        let (clientID, secret): (String, String)
        switch credential {
        case .basic(let id, let presented), .post(let id, let presented): (clientID, secret) = (id, presented)
        case .assertion, .none: return false
        }
        let now = clock()
        let (read, owner) = try database.readOnCallingThread { connection in
            try connection.readTransaction { () throws -> (OIDCCodeExchangeRead, OwnerLinkCandidate?) in
                let read = try OIDCCodeExchangeRead.read(
                    clientID: clientID, code: fields["code"], redirectURI: fields["redirect_uri"], now: now, connection)
                guard case .ready(let signIn)? = read.code else { return (read, nil) }
                return (read, try OwnerStore.linkCandidate(id: signIn.ownerID, connection))
            }
        }
        // A registered client (`client_secret_post`) is the task's, as authenticate(_:endpoint:) finds it there.
        guard let client = read.client else { return false }
        _ = try Self.secretChecked(client, credential, secret, now: now)
        let (party, code) = try openIDExchange(fields, party: read.party)
        let signIn: OIDCSignIn
        switch read.code {
        case .refused(let reason)?: throw OAuthError.invalidGrant(reason)
        case .replayed?:
            provider.signIns.revokeReplayed(code, now: now) { [self] revoked in
                reply(revoked.flatMap { _ -> Result<HTTPResponse, any Error> in .failure(openIDCodeReused()) })
            }
            return true
        case .ready(let ready)?: signIn = ready
        case nil: throw OAuthError.invalidRequest("code is required.")  // openIDExchange refused it already
        }
        try Self.checkVerifier(of: signIn, fields["code_verifier"])
        guard let owner else { throw Self.ownerGone }
        let issue = openIDIssue(signIn, party: party, provider: provider, now: now)
        let tokens = try signOpenIDTokens(issue, owner: owner, now: now)
        provider.signIns.redeem(
            code, signIn: signIn, jti: issue.jti, expiresAt: now + issue.ttl, now: now, mail: issue.mail
        ) { [self] won in
            reply(
                won.flatMap { won -> Result<HTTPResponse, any Error> in
                    won ? .success(openIDTokenResponse(issue, tokens)) : .failure(openIDCodeReused())
                })
        }
        return true
    }
}

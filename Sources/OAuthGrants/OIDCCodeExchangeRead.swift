import Storage

/// What the token endpoint reads for a relying party's `authorization_code` exchange, all on one connection: the
/// confidential client the request names, its relying party and the presented code, each the query of the async read
/// of the same name (``OAuthConfidentialClients/client(id:)``, ``OIDCRelyingParties/party(id:)``,
/// ``OIDCSignIns/checkCode(_:clientID:redirectURI:now:)``). For the exchange run to completion on an event loop
/// (SQLite), whose read is made on the loop thread's own connection in one read transaction (issue 88).
public struct OIDCCodeExchangeRead: Sendable {
    /// The confidential client named; nil: none is (the request is another client's, or unknown).
    public let client: OAuthConfidentialClient?
    /// The relying party of that client; nil: the client is none, or there was no client.
    public let party: OIDCRelyingParty?
    /// What the code is for that party; nil when there was no party or no code.
    public let code: OIDCSignIns.CodeCheck?

    /// Reads the client `clientID` and, when it is a relying party and `code` is not empty, the code as the relying
    /// party presents it with `redirectURI` at `now`.
    /// - Throws: storage errors.
    public static func read(
        clientID: String, code: String?, redirectURI: String?, now: Int64, _ connection: any SQLConnection
    ) throws -> OIDCCodeExchangeRead {
        guard !clientID.isEmpty, clientID.utf8.count <= 256,
            let client = try OAuthConfidentialClients.clients(connection, where: "c.client_id = ?", [.text(clientID)])
                .first
        else { return OIDCCodeExchangeRead(client: nil, party: nil, code: nil) }
        guard let party = try OIDCRelyingParties.party(clientID, connection) else {
            return OIDCCodeExchangeRead(client: client, party: nil, code: nil)
        }
        guard let code, !code.isEmpty else { return OIDCCodeExchangeRead(client: client, party: party, code: nil) }
        return OIDCCodeExchangeRead(
            client: client, party: party,
            code: try OIDCSignIns.checkCode(
                code, clientID: party.clientID, redirectURI: redirectURI, now: now, connection))
    }
}

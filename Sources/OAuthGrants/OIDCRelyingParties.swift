import Directory
import JSON
import Storage

/// The relying parties of migration 0075 (`oidc_relying_parties`, `oidc_relying_party_owners`): made with their
/// confidential client by the operator's command, read by the authorization server.
public struct OIDCRelyingParties: Sendable {
    let database: any SQLDatabase

    /// - Parameter database: a database with migrations 0069, 0075, 0079 and 0080 applied.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Records `party` for its (already made) confidential client; a listed policy names owners by id (the caller
    /// resolved them through the owners' store; an unknown id fails the foreign key).
    /// - Returns: the party as stored.
    /// - Throws: storage errors.
    @discardableResult
    public func record(_ party: OIDCRelyingParty) async throws -> OIDCRelyingParty {
        try await database.write { connection in
            try connection.transaction {
                var sector = SQLValue.null
                if case .pairwise(let host) = party.subjectType { sector = .text(host) }
                var owners: [String] = []
                if case .listed(let listed) = party.signIn {
                    for id in listed where !owners.contains(id) { owners.append(id) }
                }
                try connection.run(
                    """
                    INSERT INTO oidc_relying_parties (client_id, redirect_uris, post_logout_redirect_uris,
                        backchannel_logout_uri, id_token_alg, first_party, legacy_no_pkce, sign_in, subject_type,
                        sector_identifier, id_token_signed_response_alg, mail_scope)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(party.clientID), .text(Self.json(party.redirectURIs)),
                        .text(Self.json(party.postLogoutRedirectURIs)),
                        party.backchannelLogoutURI.map { .text($0) } ?? .null, .text(Self.previousAlgorithm(party)),
                        .integer(party.firstParty ? 1 : 0), .integer(party.legacyNoPKCE ? 1 : 0),
                        .text(party.signIn.word), .text(party.subjectType.word), sector,
                        .text(party.idTokenAlgorithm.rawValue), party.mailAccess.map { .text($0.scope) } ?? .null,
                    ])
                for owner in owners {
                    try connection.run(
                        "INSERT INTO oidc_relying_party_owners (client_id, owner_id) VALUES (?, ?)",
                        [.text(party.clientID), .text(owner)])
                }
                return try Self.party(party.clientID, connection) ?? party
            }
        }
    }

    /// The relying party `clientID`, if that confidential client is one.
    public func party(id clientID: String) async throws -> OIDCRelyingParty? {
        guard !clientID.isEmpty, clientID.utf8.count <= 256 else { return nil }
        return try await database.read { try Self.party(clientID, $0) }
    }

    static func party(_ clientID: String, _ connection: any SQLConnection) throws -> OIDCRelyingParty? {
        guard
            let row = try connection.query(
                """
                SELECT c.client_name, r.redirect_uris, r.post_logout_redirect_uris, r.backchannel_logout_uri,
                    COALESCE(r.id_token_signed_response_alg, r.id_token_alg) AS id_token_alg, r.first_party,
                    r.legacy_no_pkce, r.sign_in, r.subject_type, r.sector_identifier, r.mail_scope
                FROM oidc_relying_parties r JOIN oauth_confidential_clients c ON c.client_id = r.client_id
                WHERE r.client_id = ?
                """, [.text(clientID)]
            ).first, let name = row.text("client_name"), let uris = row.text("redirect_uris").map(strings),
            let algorithm = row.text("id_token_alg").flatMap(OIDCRelyingParty.SigningAlgorithm.init(rawValue:))
        else { return nil }
        let policy: OIDCRelyingParty.SignInPolicy
        switch row.text("sign_in") {
        case "listed"?:
            policy = .listed(
                try connection.query(
                    "SELECT owner_id FROM oidc_relying_party_owners WHERE client_id = ? ORDER BY owner_id",
                    [.text(clientID)]
                ).compactMap { $0.text("owner_id") })
        case "second_factor"?: policy = .secondFactor
        default: policy = .allOwners
        }
        var subjectType = OIDCRelyingParty.SubjectType.public
        if row.text("subject_type") == "pairwise" {
            // A pairwise party without its sector would give every owner one subject everywhere: refuse to read it.
            guard let sector = row.text("sector_identifier"), !sector.isEmpty else { return nil }
            subjectType = .pairwise(sector: sector)
        }
        return OIDCRelyingParty(
            clientID: clientID, name: name, redirectURIs: uris,
            postLogoutRedirectURIs: row.text("post_logout_redirect_uris").map(strings) ?? [],
            backchannelLogoutURI: row.text("backchannel_logout_uri"), idTokenAlgorithm: algorithm,
            firstParty: row.int("first_party") == 1, legacyNoPKCE: row.int("legacy_no_pkce") == 1, signIn: policy,
            subjectType: subjectType, mailAccess: row.text("mail_scope").flatMap(MailPermissions.init(scope:)))
    }

    /// What `id_token_alg` says for the release before migration 0080, which reads only it and cannot sign ES256:
    /// RS256 for an ES256 party (its ID tokens from such an instance, during a rolling upgrade, are RS256).
    static func previousAlgorithm(_ party: OIDCRelyingParty) -> String {
        (party.idTokenAlgorithm == .es256 ? .rs256 : party.idTokenAlgorithm).rawValue
    }

    static func json(_ values: [String]) -> String {
        String(decoding: JSONValue.array(values.map(JSONValue.string)).serialize(), as: UTF8.self)
    }

    static func strings(_ json: String) -> [String] {
        ((try? JSONValue.parse(Array(json.utf8)))?.arrayValue ?? []).compactMap(\.stringValue)
    }
}

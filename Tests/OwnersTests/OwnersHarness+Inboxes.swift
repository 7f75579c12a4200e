import AgentAuth
import Directory
import Foundation
import HTTP1
import OAuthGrants
import Owners
import Storage

/// The harness with `/owner` routed: owners' inboxes on `agents.localhost` and their grants, at the harness clock.
extension OwnersHarness {
    static let agentDomain = "agents.localhost"

    /// The agent accounts table.
    var accounts: AgentAccountStore { AgentAccountStore(database: test.database) }

    /// The inboxes owners hold.
    var ownedInboxes: AgentOwnedInboxes {
        let clock = clock
        return AgentOwnedInboxes(accounts: accounts, domain: Self.agentDomain, clock: { clock.now })
    }

    /// The grants store the page reads, telling `revoked` each grant it revokes.
    func grants(revoked: @escaping @Sendable (String) -> Void = { _ in }) -> OwnerGrants {
        let clock = clock
        return OwnerGrants(
            store: OAuthGrantStore(database: test.database, observer: RevocationsTold(told: revoked)),
            clock: { clock.now })
    }

    /// Tells a closure each grant the store revoked.
    struct RevocationsTold: OAuthGrantRevocationObserver {
        let told: @Sendable (String) -> Void
        func grantRevoked(_ grantID: String) { told(grantID) }
    }

    /// Adds the `/owner` routes.
    func routeInboxPages(revoked: @escaping @Sendable (String) -> Void = { _ in }) {
        OwnerInboxPages(
            service: service, inboxes: ownedInboxes, grants: grants(revoked: revoked), agentDomain: Self.agentDomain
        ).register(into: &router)
    }

    /// Writes an OAuth client and a grant of it to `ownerID` as the authorization server would; returns the grant id.
    @discardableResult
    func insertGrant(
        ownerID: String, clientID: String = "client-" + String(UInt32.random(in: 0...UInt32.max)),
        clientName: String? = "Make", scope: String = "mail.read mail.send",
        resource: String = "http://127.0.0.1:8080/jmap", agentID: String? = nil, createdAt: Int64? = nil,
        expiresAt: Int64? = nil, revokedAt: Int64? = nil, boundAccountID: String? = nil
    ) throws -> String {
        let id = UUID().uuidString.lowercased()
        let now = clock.now
        try test.database.writeSync { connection in
            try connection.run(
                """
                INSERT INTO oauth_clients (client_id, kind, auth_method, client_name, redirect_uris, metadata, created_at)
                VALUES (?, 'registered', 'none', ?, '["https://app.example/cb"]', '{}', ?) ON CONFLICT (client_id) DO NOTHING
                """,
                [.text(clientID), clientName.map(SQLValue.text) ?? .null, .integer(now)])
            try connection.run(
                """
                INSERT INTO oauth_grants (id, owner_id, client_id, agent_id, scope, resource, created_at, expires_at,
                    revoked_at, bound_account_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(id), .text(ownerID), .text(clientID), agentID.map(SQLValue.text) ?? .null, .text(scope),
                    .text(resource), .integer(createdAt ?? now), .integer(expiresAt ?? now + 90 * 86_400),
                    revokedAt.map(SQLValue.integer) ?? .null, boundAccountID.map(SQLValue.text) ?? .null,
                ])
        }
        return id
    }

    /// `revoked_at` of grant `id`.
    func revokedAt(grant id: String) throws -> Int64? {
        try test.database.readSync { connection in
            try connection.query("SELECT revoked_at FROM oauth_grants WHERE id = ?", [.text(id)]).first?.int("revoked_at")
        }
    }

    /// A session of its own for `email` (a second browser): its cookies replace the jar's.
    func signInFresh(_ email: String, _ password: String) async throws {
        cookies = [:]
        _ = try await signIn(email, password)
    }
}

extension HTTPResponse {
    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

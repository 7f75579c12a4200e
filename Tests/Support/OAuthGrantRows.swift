import Foundation
import Storage

/// The rows the authorization server writes when it issues an access token (migration 0016), written directly so
/// that the resource side is tested without it: an owner, a registered client, a grant, and one
/// `oauth_access_tokens` row per token.
public struct OAuthGrantRows: Sendable {
    public let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Inserts owner `id` (no usable password) unless present.
    public func owner(_ id: String = UUID().uuidString.lowercased()) throws -> String {
        _ = try database.writeSync { connection in
            try connection.run(
                "INSERT INTO owners (id, email, password_hash, created_at) VALUES (?, ?, 'x', 0) ON CONFLICT (id) DO NOTHING",
                [.text(id), .text(id + "@owners.example")])
        }
        return id
    }

    /// Inserts client `id` (public, one loopback redirect) unless present.
    public func client(_ id: String = "client-" + UUID().uuidString.lowercased()) throws -> String {
        _ = try database.writeSync { connection in
            try connection.run(
                """
                INSERT INTO oauth_clients (client_id, kind, auth_method, redirect_uris, metadata, created_at)
                VALUES (?, 'registered', 'none', '["http://127.0.0.1:9/cb"]', '{}', 0) ON CONFLICT (client_id) DO NOTHING
                """, [.text(id)])
        }
        return id
    }

    /// Inserts a live grant; returns its id.
    /// - Parameters:
    ///   - agentID: the default inbox (an `agent_accounts` id), or nil.
    ///   - expiresAt: the end of its rotation chain (default: far away).
    ///   - boundAccountID: the one inbox the grant reaches ("only this inbox" at consent), or nil for all held.
    public func grant(
        owner: String, client: String, scope: String, resource: String, agentID: String? = nil,
        expiresAt: Int64 = 4_000_000_000, boundAccountID: String? = nil
    ) throws -> String {
        let id = UUID().uuidString.lowercased()
        _ = try database.writeSync { connection in
            try connection.run(
                """
                INSERT INTO oauth_grants (id, owner_id, client_id, agent_id, scope, resource, created_at, expires_at,
                    bound_account_id)
                VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)
                """,
                [
                    .text(id), .text(owner), .text(client), agentID.map { .text($0) } ?? .null, .text(scope),
                    .text(resource), .integer(expiresAt), boundAccountID.map { .text($0) } ?? .null,
                ])
        }
        return id
    }

    /// Records access token `jti` of `grant`, expiring at `expiresAt`.
    public func token(jti: String, grant: String, expiresAt: Int64) throws {
        _ = try database.writeSync { connection in
            try connection.run(
                "INSERT INTO oauth_access_tokens (jti, grant_id, expires_at) VALUES (?, ?, ?)",
                [.text(jti), .text(grant), .integer(expiresAt)])
        }
    }

    /// Revokes `grant` as the authorization server does (on PostgreSQL the trigger notifies `postern_grants`).
    public func revoke(_ grant: String, at now: Int64) async throws {
        _ = try await database.write { connection in
            try connection.run("UPDATE oauth_grants SET revoked_at = ? WHERE id = ?", [.integer(now), .text(grant)])
        }
    }
}

import Audit
import ClientAddress
import Directory
import Synchronization
import Time

/// A resource door's access-token check that writes what an agent acting for its owner read there (issue 86): the
/// first request a delegated token (token exchange, with `act`) makes at JMAP or MCP on this instance writes one
/// `agent.read` line on the owner's trail, as the agent's, naming the token, the actor chain and the client's address
/// (the request context's, as every line of a request names it; none when the door did not say); its later requests
/// write nothing, and a token without `act` never writes (a nil check on the hot path).
///
/// One line per token and door rather than one per request: a JMAP client or an MCP session makes many requests with
/// one token (polls, a push stream's reconnections, each tool call), and a write each would put a durable write on
/// every read, while the token is what the owner's trail already names (`app.token_exchange`, whose target is the same
/// `jti`) and lives at most 900 s, so an agent that keeps reading takes a new token, and writes a new line, at least
/// every 15 minutes. What each request did is the door's own log; what was sent is `agent.sent`.
struct DelegatedReadAudit: AccessGrantAuthenticator {
    /// The door the line names (`jmap`, `mcp`).
    let door: String
    let verifier: any AccessGrantAuthenticator
    let audit: AuditTrail
    let seen: FirstUses

    func grant(for token: String, resources: Set<AccessGrant.Resource>) async throws -> AccessGrant {
        try await grant(for: token, resources: resources, client: nil)
    }

    func grant(for token: String, resources: Set<AccessGrant.Resource>, client: IPAddress?) async throws
        -> AccessGrant
    {
        let grant = try await verifier.grant(for: token, resources: resources, client: client)
        guard let delegation = grant.delegation, let tokenID = grant.tokenID else { return grant }
        let now = audit.clock()
        if seen.first(door + " " + tokenID, now: now) {
            await audit.record {
                .acting(
                    for: delegation.ownerID, actorIDs: delegation.actorIDs, .agentRead, target: tokenID,
                    client: client?.description,
                    details: [("door", door)], time: $0)
            }
        }
        return grant
    }

    func statelessCheck(_ token: String, resources: Set<AccessGrant.Resource>) throws -> MailPermissions? {
        try verifier.statelessCheck(token, resources: resources)
    }

    /// The delegated tokens a door has seen on this instance, each kept for the longest an access token lives from its
    /// first use; at most ``capacity``. When full, the entries past their time go, then all (a token seen again then
    /// writes a second line: a bounded cost for a bounded memory).
    final class FirstUses: Sendable {
        /// The most tokens kept.
        static let capacity = 16_384
        /// How long a token is kept from its first use, seconds: the longest an access token lives.
        static let keptFor: Int64 = 900

        /// Each token's end of being kept, Unix seconds.
        private let until = Mutex(ExpiringEntries<String, Int64>(capacity: capacity) { end, now in end > now })

        /// Whether `key` is seen here for the first time (within ``keptFor`` seconds of `now`); it is kept.
        func first(_ key: String, now: Int64) -> Bool {
            until.withLock { until in
                if let end = until[key], end > now { return false }
                until.insert(now + Self.keptFor, for: key, now: now)
                return true
            }
        }
    }
}

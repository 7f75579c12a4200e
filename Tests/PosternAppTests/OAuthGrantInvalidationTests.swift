import Foundation
import OAuthResource
import PosternTestSupport
import Testing

@testable import PosternApp

/// Two instances on one PostgreSQL database: a grant revoked through one is refused by the other at once, through
/// the `postern_grants` notification that drops it from the other's cache.
@Suite("OAuth grant revocation across instances", .onPostgres, .timeLimit(.minutes(1)))
struct OAuthGrantInvalidationTests {
    @Test("a grant cached on instance B is dropped by the notification of its revocation on instance A")
    func twoInstances() async throws {
        let pair = try await TwoInstanceGrants.start()
        defer { Task { await pair.stop() } }
        let (token, grant) = try pair.h.token(resource: pair.h.jmap)
        #expect(try await pair.jmapOnB(token).status == 200)
        #expect(pair.cache.count == 1)
        try await pair.h.revoke(grant)
        #expect(try await pair.drained())
        let refused = try await pair.jmapOnB(token)
        #expect(refused.status == 401)
        #expect(refused.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
    }
}

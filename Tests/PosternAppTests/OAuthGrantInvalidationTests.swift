import Foundation
import OAuthResource
import PosternTestSupport
import Testing

@testable import PosternApp

/// Two instances on one PostgreSQL database: a grant revoked through one is refused by the other at once, through
/// the `postern_grants` notification that drops it from the other's cache.
@Suite("OAuth grant revocation across instances", .enabled(if: StorageBackend.current == .postgres))
struct OAuthGrantInvalidationTests {
    @Test("a grant cached on instance B is dropped by the notification of its revocation on instance A")
    func twoInstances() async throws {
        let first = try await TestServer.start()
        let second = try await TestServer.start { $0.dataDirectory = first.dataDirectory }
        let h = try await OAuthOwnerHarness.start(server: first)
        defer { Task { await second.stop(); await h.stop() } }
        let other = try second.client()
        let (token, grant) = try h.token(resource: h.jmap)
        let headers = [("Authorization", "Bearer " + token), ("X-Atomic-Account-Id", h.ada.accountID)]
        let body = Array(#"{"using":["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail"],"methodCalls":[["Mailbox/get",{},"m"]]}"#.utf8)
        #expect(try await other.request("POST", "/jmap", headers: headers, body: body).status == 200)
        let cache = OAuthGrantCache.of(second.runtime.database)
        #expect(cache.count == 1)

        try await h.revoke(grant)
        // Nothing but the notification removes the entry from B's cache; wait for that condition.
        for _ in 0..<400 where cache.count > 0 { try await Task.sleep(for: .milliseconds(25)) }
        #expect(cache.count == 0)
        let refused = try await other.request("POST", "/jmap", headers: headers, body: body)
        #expect(refused.status == 401)
        #expect(refused.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
    }
}

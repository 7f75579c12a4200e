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
        let first = try await TestServer.start(.postgres)
        let second = try await TestServer.start(.postgres) { $0.storage.dataDirectory = first.dataDirectory }
        let h = try await OAuthOwnerHarness.start(.postgres, server: first)
        defer {
            Task {
                await second.stop()
                await h.stop()
            }
        }
        let other = try second.client()
        let cache = second.runtime.grantCache
        let body = Array(
            #"{"using":["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail"],"methodCalls":[["Mailbox/get",{},"m"]]}"#
                .utf8)
        func headers(_ token: String) -> [(String, String)] {
            [("Authorization", "Bearer " + token), ("X-Atomic-Account-Id", h.ada.accountID)]
        }
        /// Waits until B's cache holds nothing: only a `postern_grants` notification, or the flush when B's listener
        /// (re)connects, empties it.
        func drained() async throws -> Bool {
            for _ in 0..<400 where cache.count > 0 { try await Task.sleep(for: .milliseconds(25)) }
            return cache.count == 0
        }
        // First round: once B's cache has been emptied, B's listener is connected (its first connection flushes).
        let (warm, warmGrant) = try h.token(resource: h.jmap)
        #expect(try await other.request("POST", "/jmap", headers: headers(warm), body: body).status == 200)
        try await h.revoke(warmGrant)
        #expect(try await drained())

        let (token, grant) = try h.token(resource: h.jmap)
        #expect(try await other.request("POST", "/jmap", headers: headers(token), body: body).status == 200)
        #expect(cache.count == 1)
        try await h.revoke(grant)
        #expect(try await drained())
        let refused = try await other.request("POST", "/jmap", headers: headers(token), body: body)
        #expect(refused.status == 401)
        #expect(refused.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
    }
}

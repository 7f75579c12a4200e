import Foundation
import OAuthGrants
import PosternTestSupport
import Testing

@testable import PosternApp

/// Two instances on one PostgreSQL database with an owner harness on the first (A), and what the grant-invalidation
/// suites ask of the second (B): JMAP with a token, and B's cache of live grants drained.
struct TwoInstanceGrants {
    let first: TestServer
    let second: TestServer
    let h: OAuthOwnerHarness

    /// Starts both instances and waits until B's `postern_grants` listener is connected: its first connection flushes
    /// B's cache, so once a grant B cached has been dropped after its revocation, B hears every later one.
    static func start() async throws -> TwoInstanceGrants {
        let first = try await TestServer.start(.postgres)
        let second = try await TestServer.start(.postgres) { $0.storage.dataDirectory = first.dataDirectory }
        let pair = TwoInstanceGrants(first: first, second: second, h: try await OAuthOwnerHarness.start(.postgres, server: first))
        let (warm, warmGrant) = try pair.h.token(resource: pair.h.jmap)
        #expect(try await pair.jmapOnB(warm).status == 200)
        try await pair.h.revoke(warmGrant)
        #expect(try await pair.drained())
        return pair
    }

    func stop() async {
        await second.stop()
        await h.stop()
    }

    /// B's cache of live grants.
    var cache: OAuthGrantCache { second.runtime.grantCache }

    /// `Mailbox/get` on Ada's inbox at B with `token`.
    func jmapOnB(_ token: String) async throws -> TestResponse {
        let body = Array(
            #"{"using":["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail"],"methodCalls":[["Mailbox/get",{},"m"]]}"#
                .utf8)
        return try await second.client().request(
            "POST", "/jmap", headers: [("Authorization", "Bearer " + token), ("X-Atomic-Account-Id", h.ada.accountID)],
            body: body)
    }

    /// Waits until B's cache holds nothing: only a `postern_grants` notification, or the flush when B's listener
    /// (re)connects, empties it.
    func drained() async throws -> Bool {
        for _ in 0..<400 where cache.count > 0 { try await Task.sleep(for: .milliseconds(25)) }
        return cache.count == 0
    }
}

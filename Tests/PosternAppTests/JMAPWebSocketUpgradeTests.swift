import Directory
import Foundation
import JSON
import PosternTestSupport
import Testing
import WebSocket

@testable import PosternApp

/// `GET /jmap/ws` on a real server (issue 55): the bearer is checked before the upgrade, as `POST /jmap/api` checks
/// it, so a bad or missing one gets the API's 401 (its `WWW-Authenticate` and problem body) and never a `101`; a good
/// one gets the `101` with the `jmap` subprotocol. An owner's OAuth access token opens it as it opens `POST /jmap`.
@Suite("JMAP over WebSocket: the upgrade's bearer checked before the 101")
struct JMAPWebSocketUpgradeTests {
    @Test(
        "a bad or missing bearer: the API's 401 and no 101, the connection still HTTP; a capability JWT: 101 with jmap",
        arguments: StorageBackend.allCases)
    func bearerBeforeUpgrade(_ backend: StorageBackend) async throws {
        let harness = try await JMAPHarness.start(backend)
        defer { Task { await harness.stop() } }
        let agent = try await harness.signUp("socket-agent")

        for bearer in [nil, "not-a-token", agent.sessionToken] as [String?] {
            let client = try harness.server.client()
            let refused = try await client.request("GET", "/jmap/ws", headers: Self.handshake(bearer: bearer))
            let api = try await harness.server.client().request(
                "POST", "/jmap/api",
                headers: bearer.map { [("Authorization", "Bearer " + $0), ("Content-Type", "application/json")] }
                    ?? [("Content-Type", "application/json")],
                body: Array(#"{"using":[],"methodCalls":[]}"#.utf8))
            let name = bearer == nil ? "no bearer" : bearer == agent.sessionToken ? "a session JWT" : "garbage"
            #expect(refused.status == 401, "\(name): \(refused.status) \(refused.text)")
            #expect(refused.status == api.status, "\(name): as POST /jmap/api")
            #expect(refused.header("WWW-Authenticate") != nil, "\(name)")
            #expect(refused.header("WWW-Authenticate") == api.header("WWW-Authenticate"), "\(name)")
            #expect(refused.header("Content-Type") == api.header("Content-Type"), "\(name)")
            #expect(refused.text == api.text, "\(name): the API's problem body")
            #expect(refused.header("Sec-WebSocket-Accept") == nil, "\(name): no 101 head before or after")
            // The connection was never switched: it answers HTTP next.
            let next = try await client.request("GET", "/healthz")
            #expect(next.status == 200, "\(name): the connection stays HTTP (\(next.status))")
        }

        let client = try harness.server.client()
        let accepted = try await client.request(
            "GET", "/jmap/ws", headers: Self.handshake(bearer: agent.capability))
        #expect(accepted.status == 101, "\(accepted.status) \(accepted.text)")
        #expect(accepted.header("Sec-WebSocket-Accept") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(accepted.header("Sec-WebSocket-Protocol") == "jmap")
    }

    @Test(
        "an owner's OAuth access token opens /jmap/ws as POST /jmap (X-Atomic-Account-Id too); a Request is answered",
        arguments: StorageBackend.allCases)
    func oauthAccessToken(_ backend: StorageBackend) async throws {
        let h = try await OAuthOwnerHarness.start(backend)
        defer { Task { await h.stop() } }
        let (token, _) = try h.token(resource: h.jmap)
        #expect(BearerAuthenticator.isAccessToken(token))
        let inbox = [("X-Atomic-Account-Id", h.ada.accountID)]

        // Without the inbox header the upgrade is refused as POST /jmap refuses the call, before any 101.
        let bare = try await h.server.client().request("GET", "/jmap/ws", headers: Self.handshake(bearer: token))
        let api = try await h.server.client().request(
            "POST", "/jmap", headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
            body: Array(#"{"using":[],"methodCalls":[]}"#.utf8))
        #expect(
            bare.status == 400 && bare.status == api.status, "\(bare.status) \(bare.text); POST /jmap \(api.status)")
        #expect(bare.header("Sec-WebSocket-Accept") == nil)

        let client = try h.server.client()
        let accepted = try await client.request("GET", "/jmap/ws", headers: Self.handshake(bearer: token) + inbox)
        #expect(accepted.status == 101, "\(accepted.status) \(accepted.text)")
        #expect(accepted.header("Sec-WebSocket-Protocol") == "jmap")
        let request = #"""
            {"@type":"Request","id":"r1","using":["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail"],
            "methodCalls":[["Mailbox/get",{"properties":["role"]},"m"]]}
            """#
        client.sendRaw(
            WebSocketFrameEncoder.encodeMasked(
                WebSocketFrame(opcode: .text, payload: Array(request.utf8)), mask: (5, 6, 7, 8)))
        let frame = try await client.readWebSocketFrame()
        #expect(frame.opcode == .text)
        let response = try JSONValue.parse(frame.payload)
        #expect(response["@type"]?.stringValue == "Response", "\(String(decoding: frame.payload, as: UTF8.self))")
        #expect(response["requestId"]?.stringValue == "r1")
        let call = try #require(response["methodResponses"]?.arrayValue?.first?.arrayValue)
        try #require(call.count == 3)
        #expect(call.first?.stringValue == "Mailbox/get" && call.last?.stringValue == "m")
        #expect(call[1]["accountId"]?.stringValue == h.ada.accountID)
        let roles = (call[1]["list"]?.arrayValue ?? []).compactMap { $0["role"]?.stringValue }
        #expect(roles.contains("inbox"), "\(roles)")
    }

    /// The opening handshake's headers, with `bearer` when given.
    static func handshake(bearer: String?) -> [(String, String)] {
        var headers = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Protocol", "jmap"),
        ]
        if let bearer { headers.append(("Authorization", "Bearer " + bearer)) }
        return headers
    }
}

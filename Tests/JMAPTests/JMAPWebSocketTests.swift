import Directory
import HTTP1
import JSON
import PosternTestSupport
import ServerKit
import Synchronization
import Testing
import WebSocket

@testable import JMAP

extension WebSocketTestPeer {
    /// The next message sent, as JSON, waiting up to `seconds`; nil when none came (or it was not text).
    func next(within seconds: Double = 30) async throws -> JSONValue? {
        guard case .text(let text)? = try await nextMessage(within: seconds) else { return nil }
        return try JSONValue.parse(Array(text.utf8))
    }
}

/// Ada's bearer until it is revoked (a password reset, a grant withdrawn, an expiry).
final class RevocableAuthenticator: PrincipalAuthenticator {
    private let revoked = Atomic<Bool>(false)

    func revoke() { revoked.store(true, ordering: .relaxed) }

    func principal(for credentials: Credentials) async throws -> Principal? {
        credentials.bearerToken == "ada" && !revoked.load(ordering: .relaxed) ? JMAPServiceHarness.ada : nil
    }
}

@Suite("JMAP over WebSocket (RFC 8887): the upgrade, requests, errors and push on the change stream", .timeLimit(.minutes(1)))
struct JMAPWebSocketTests {
    static let using = #"["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail"]"#

    /// The route's answer to an upgrade offering `protocols` with `bearer` (a later one awaited).
    static func upgrade(_ harness: JMAPServiceHarness, bearer: String?, protocols: String? = "jmap") async throws
        -> WebSocketRouteAnswer
    {
        var headers: HTTPHeaders = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        if let protocols { headers.add("Sec-WebSocket-Protocol", protocols) }
        if let bearer { headers.add("Authorization", "Bearer " + bearer) }
        let request = HTTPRequest(
            method: .GET, target: "/jmap/ws", version: .http1_1, headers: headers, body: [], remoteAddress: "192.0.2.7",
            requestID: "jmap-ws-test")
        let handshake = try WebSocketHandshake.validate(
            method: .GET, version: .http1_1, headers: headers, publicOrigin: nil, allowedOrigins: []
        ).get()
        guard case .found(let route, let parameters) = harness.router.match(method: .GET, path: "/jmap/ws"),
            case .webSocket(let handler) = route.handler
        else {
            Issue.record("no WebSocket route at /jmap/ws")
            return .refuse(HTTPResponse(status: .notFound))
        }
        var answer = handler(request, RequestContext(request), parameters, handshake)
        while case .later(let decide) = answer { answer = await decide() }
        return answer
    }

    /// A socket opened with `bearer`.
    static func open(_ harness: JMAPServiceHarness, bearer: String = "ada") async throws -> WebSocketTestPeer {
        guard case .accept(let subprotocol, let handler) = try await upgrade(harness, bearer: bearer) else {
            Issue.record("the upgrade was refused")
            return WebSocketTestPeer { _, _ in }
        }
        #expect(subprotocol == "jmap")
        return WebSocketTestPeer(handler)
    }

    @Test("The session advertises urn:ietf:params:jmap:websocket with the ws URL and supportsPush", arguments: StorageBackend.allCases)
    func session(backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        let response = await harness.send(.GET, "/.well-known/jmap", bearer: "ada")
        let capability = try JSONValue.parse(response.body)["capabilities"]?["urn:ietf:params:jmap:websocket"]
        #expect(capability == .object([("url", "ws://jmap.test/jmap/ws"), ("supportsPush", true)]))
    }

    @Test("The upgrade: without the jmap subprotocol 400, without a bearer 401, else accepted with jmap", arguments: StorageBackend.allCases)
    func upgradeRules(backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        for protocols in [nil, "chat", "jmapx, chat"] as [String?] {
            guard case .refuse(let response) = try await Self.upgrade(harness, bearer: "ada", protocols: protocols) else {
                Issue.record("accepted without jmap: \(protocols ?? "none")")
                continue
            }
            #expect(response.status.code == 400)
        }
        guard case .refuse(let response) = try await Self.upgrade(harness, bearer: nil) else {
            Issue.record("accepted without a bearer")
            return
        }
        #expect(response.status.code == 401)
        #expect(response.headers["WWW-Authenticate"] != nil)
        guard case .accept(let chosen, _) = try await Self.upgrade(harness, bearer: "ada", protocols: "chat, jmap") else {
            Issue.record("refused with jmap offered")
            return
        }
        #expect(chosen == "jmap")
    }

    @Test("A Request is answered with its Response and requestId, as POST /jmap/api; errors are RequestErrors", arguments: StorageBackend.allCases)
    func requests(backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend) { $0.maxCallsInRequest = 2 }
        let channel = try await Self.open(harness)
        channel.receive(
            #"{"@type":"Request","id":"R1","using":\#(Self.using),"methodCalls":[["Mailbox/get",{"accountId":"acct-ada","ids":null},"c1"]]}"#)
        let response = try #require(try await channel.next())
        #expect(response["@type"] == "Response")
        #expect(response["requestId"] == "R1")
        let call = try #require(response["methodResponses"]?.arrayValue?.first?.arrayValue)
        #expect(call[0] == "Mailbox/get")
        #expect(call[2] == "c1")
        #expect(response["sessionState"]?.stringValue != nil)
        let http = try await harness.api("ada", #"[["Mailbox/get",{"accountId":"acct-ada","ids":null},"c1"]]"#)
        #expect(call[1]["list"] == http.first?.arrayValue?[1]["list"], "the same answer as over HTTP")

        channel.receive(#"{"@type":"Request","using":\#(Self.using),"methodCalls":[]}"#)
        let bare = try #require(try await channel.next())
        #expect(bare["@type"] == "Response")
        #expect(bare["requestId"] == nil)

        channel.receive("The quick brown fox")
        let notJSON = try #require(try await channel.next())
        #expect(notJSON["@type"] == "RequestError")
        #expect(notJSON["type"] == "urn:ietf:params:jmap:error:notJSON")
        #expect(notJSON["requestId"] == .null)

        channel.receive(#"{"@type":"Request","id":"R2","using":["urn:example:nope"],"methodCalls":[]}"#)
        let unknown = try #require(try await channel.next())
        #expect(unknown["type"] == "urn:ietf:params:jmap:error:unknownCapability")
        #expect(unknown["requestId"] == "R2")
        #expect(unknown["status"] == 400)

        channel.receive(#"{"@type":"Request","id":"R3","methodCalls":[]}"#)
        let notRequest = try #require(try await channel.next())
        #expect(notRequest["type"] == "urn:ietf:params:jmap:error:notRequest")
        #expect(notRequest["requestId"] == "R3")

        let calls = Array(repeating: #"["Core/echo",{},"c"]"#, count: 3).joined(separator: ",")
        channel.receive(#"{"@type":"Request","id":"R4","using":\#(Self.using),"methodCalls":[\#(calls)]}"#)
        let limit = try #require(try await channel.next())
        #expect(limit["type"] == "urn:ietf:params:jmap:error:limit")
        #expect(limit["limit"] == "maxCallsInRequest")
        #expect(!channel.isClosed, "errors leave the socket open")
    }

    @Test("A bearer the authenticator refuses is refused before the upgrade with POST /jmap/api's own 401", arguments: StorageBackend.allCases)
    func refusedBearer(backend: StorageBackend) async throws {
        let harness = try JMAPServiceHarness(backend)
        guard case .refuse(let response) = try await Self.upgrade(harness, bearer: "mallory") else {
            Issue.record("a bearer the authenticator refuses was accepted")
            return
        }
        let api = await harness.send(.POST, "/jmap/api", bearer: "mallory")
        #expect(response.status.code == 401)
        #expect(response.status == api.status)
        #expect(response.headers["WWW-Authenticate"] == api.headers["WWW-Authenticate"])
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.body == api.body)
    }

    @Test("A bearer revoked mid-stream closes the socket with 1008 at the next push, and at the next request", arguments: StorageBackend.allCases)
    func revocation(backend: StorageBackend) async throws {
        let bearers = RevocableAuthenticator()
        let harness = try JMAPServiceHarness(backend, authenticator: bearers)
        let pushing = try await Self.open(harness)
        let asking = try await Self.open(harness)
        pushing.receive(#"{"@type":"WebSocketPushEnable","dataTypes":null}"#)
        asking.receive(#"{"@type":"Request","id":"R1","using":\#(Self.using),"methodCalls":[]}"#)
        #expect(try await asking.next()?["requestId"] == "R1")
        try await Task.sleep(for: .milliseconds(100))
        bearers.revoke()
        _ = try await JMAPChangesTests().deliver(harness, "after the revocation")
        try await pushing.waitForClose()
        #expect(pushing.closed?.code == .policyViolation)
        #expect(pushing.closed?.reason == "token_revoked")
        #expect(try await pushing.next(within: 0.2) == nil, "no StateChange for a revoked bearer")
        asking.receive(#"{"@type":"Request","id":"R2","using":\#(Self.using),"methodCalls":[]}"#)
        try await asking.waitForClose()
        #expect(asking.closed?.reason == "token_revoked")
        #expect(try await asking.next(within: 0.2) == nil, "no Response for a revoked bearer")
        await pushing.handlerEnded()
        await asking.handlerEnded()
    }

    @Test("Push: a StateChange with pushState after a delivery; pushState resumes; dataTypes filter; disable stops", arguments: StorageBackend.allCases)
    func push(backend: StorageBackend) async throws {
        var counted: CountingDatabase?
        let harness = try JMAPServiceHarness(
            backend,
            storeDatabase: { database in
                let counting = CountingDatabase(database)
                counted = counting
                return counting
            })
        let store = try #require(counted)
        let channel = try await Self.open(harness)
        let before = try await harness.store.state(address: "ada@agents.test")
        let enabled = store.counts.statements
        channel.receive(#"{"@type":"WebSocketPushEnable","dataTypes":null}"#)
        // Without a pushState the push starts from the state it reads first, then its change stream looks: a delivery
        // once that look has begun is new to it, however slowly its task ran (at load 25-30, run in parallel, "first"
        // came before the push had read its start, so it was never a change to it and the StateChange never came).
        try await waitUntil("the push read where it starts") { store.counts.statements >= enabled + 2 }
        #expect(try await channel.next(within: 0.3) == nil, "no StateChange before a change")
        _ = try await JMAPChangesTests().deliver(harness, "first")
        let after = try await harness.store.state(address: "ada@agents.test")
        let change = try #require(try await channel.next())
        #expect(change["@type"] == "StateChange")
        let state = JSONValue.string(String(after))
        #expect(
            change["changed"]
                == .object([
                    ("acct-ada", .object([("Email", state), ("Mailbox", state), ("Thread", state), ("EmailDelivery", state)]))
                ]))
        #expect(try await change["pushState"] == .string(harness.pushState()))

        // Only EmailDelivery, resuming from the state before the delivery: told at once.
        channel.receive(#"{"@type":"WebSocketPushEnable","dataTypes":["EmailDelivery","Calendar"],"pushState":"\#(before)"}"#)
        let resumed = try #require(try await channel.next())
        #expect(resumed["changed"] == .object([("acct-ada", .object([("EmailDelivery", state)]))]))

        channel.receive(#"{"@type":"WebSocketPushDisable"}"#)
        try await Task.sleep(for: .milliseconds(100))
        _ = try await JMAPChangesTests().deliver(harness, "second")
        #expect(try await channel.next(within: 0.5) == nil, "nothing after WebSocketPushDisable")
        channel.receive(#"{"@type":"Request","id":"R1","using":\#(Self.using),"methodCalls":[]}"#)
        #expect(try await channel.next()?["requestId"] == "R1", "requests still answered")
        channel.clientCloses()
        await channel.handlerEnded()
    }
}

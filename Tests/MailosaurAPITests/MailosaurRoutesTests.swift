import Base64Coding
import Foundation
import Logging
import MIME
import MailStore
import PosternTestSupport
import ServerKit
import Storage
import Testing

@testable import MailosaurAPI

/// Mailosaur's routes over a migrated database of each backend, called as the server calls them: the operator's key
/// and a Pro user's as Mailosaur's SDKs send a key (Basic's user name), the servers each sees, list, search, get,
/// delete and the await woken by a delivery.
@Suite("Mailosaur API: routes", .timeLimit(.minutes(1)))
struct MailosaurRoutesTests {
    static let operatorKey = "operator-token-0123456789abcdef0123456789"
    static let catchAll = "catch-all@postern.invalid"
    static let sandbox = "sandbox-ada@sandbox.localhost"

    /// The API over `backend`'s store, the Pro key `tm_pro_ada` naming Ada's sandbox.
    final class Harness: @unchecked Sendable {
        let test: TestDatabase
        let store: MailStore
        let client: RouteClient

        init(_ backend: StorageBackend) throws {
            test = try backend.makeDatabase(logger: Logger(label: "mailosaur-tests"))
            store = MailStore(database: test.database)
            var configuration = MailosaurConfiguration()
            configuration.operatorToken = MailosaurRoutesTests.operatorKey
            var router = ContextRouter()
            MailosaurAPI(
                configuration: configuration, mail: store, sandboxes: Sandboxes(), publicURL: "http://p.test",
                onUnexpectedError: nil
            ).register(on: &router)
            client = RouteClient(router: router, requestID: "mailosaur-test")
        }

        /// `method` `path` under `/mailosaur/api` with `key` as Basic's user name (the SDKs' form).
        func call(_ method: String, _ path: String, key: String? = operatorKey, json: String? = nil) async throws
            -> TestResponse
        {
            var headers = key.map { [("Authorization", "Basic " + Base64.encode(Array(($0 + ":").utf8)))] } ?? []
            if json != nil { headers.append(("Content-Type", "application/json")) }
            return try await client.request(
                method, "/mailosaur/api" + path, headers: headers, body: Array((json ?? "").utf8))
        }

        @discardableResult
        func deliver(_ subject: String, to address: String = catchAll, rcpt: String = "ann@example.org") async throws
            -> String
        {
            let text = "From: App <app@app.example>\r\nTo: \(rcpt)\r\nSubject: \(subject)\r\n\r\n"
            let raw = Array((text + "Your code is 482913.\r\n").utf8)
            return try await store.deliver(
                NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: "bounce@app.example", raw: raw),
                to: [.init(address: address, quota: 100_000_000, envelopeTo: [rcpt])], folder: .inbox,
                now: Int64(Date().timeIntervalSince1970))[0]
        }
    }

    struct Sandboxes: MailosaurSandboxes {
        func sandboxAddress(apiToken token: String) async throws -> String? {
            token == "tm_pro_ada" ? MailosaurRoutesTests.sandbox : nil
        }
    }

    static func items(_ response: TestResponse) throws -> [[String: Any]] {
        try response.json()["items"] as? [[String: Any]] ?? []
    }

    @Test("no key or a wrong one is 401 with Basic's challenge", arguments: StorageBackend.allCases)
    func unauthorized(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        for key in [nil, "wrong", Self.operatorKey + "x"] {
            let response = try await harness.call("GET", "/servers", key: key)
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate") == #"Basic realm="Mailosaur""#)
        }
        let password = try await harness.client.request(
            "GET", "/mailosaur/api/servers",
            headers: [("Authorization", "Basic " + Base64.encode(Array(("any:" + Self.operatorKey).utf8)))])
        #expect(password.status == 200, "the key as Basic's password is taken too")
        let keyFirst = try await harness.client.request(
            "GET", "/mailosaur/api/servers",
            headers: [("Authorization", "Basic " + Base64.encode(Array((Self.operatorKey + ":x").utf8)))])
        #expect(keyFirst.status == 200, "the key as the user name whatever the password")
    }

    @Test(
        "the operator's servers: the catch-all first, then each address holding mail; a Pro key sees its sandbox only",
        arguments: StorageBackend.allCases)
    func servers(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        try await harness.deliver("one")
        try await harness.deliver("two", to: Self.sandbox)
        let all = try Self.items(try await harness.call("GET", "/servers"))
        #expect(all.map { $0["id"] as? String } == ["e07knff9", MailosaurServer.id(of: Self.sandbox)])
        #expect(all.map { $0["messages"] as? Int } == [1, 1])
        #expect(all.first?["name"] as? String == "Catch-all")
        let ada = try Self.items(try await harness.call("GET", "/servers", key: "tm_pro_ada"))
        #expect(ada.map { $0["id"] as? String } == [MailosaurServer.id(of: Self.sandbox)])
        #expect(try await harness.call("GET", "/servers/e07knff9", key: "tm_pro_ada").status == 404)
        #expect(try await harness.call("GET", "/servers/e07knff9").json()["messages"] as? Int == 1)
    }

    @Test(
        "list, search, get and delete within a server; another's key finds none of it",
        arguments: StorageBackend.allCases)
    func messages(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        let first = try await harness.deliver("Welcome")
        let second = try await harness.deliver("Your code", rcpt: "bob@example.org")
        let listed = try Self.items(try await harness.call("GET", "/messages?server=e07knff9"))
        #expect(listed.map { $0["id"] as? String } == [second, first], "newest first")
        let found = try await harness.call(
            "POST", "/messages/search?server=e07knff9", json: #"{"sentTo":"bob@example.org","match":"ALL"}"#)
        #expect(try Self.items(found).map { $0["id"] as? String } == [second])
        #expect(found.header("x-ms-delay") == nil)
        let none = try await harness.call("POST", "/messages/search?server=e07knff9", json: #"{"subject":"nothing"}"#)
        #expect(try Self.items(none).isEmpty)
        #expect(none.header("x-ms-delay") == "100", "an empty answer tells the SDK how soon to ask again")
        #expect(try await harness.call("POST", "/messages/search?server=e07knff9", json: "{}").status == 400)
        let message = try await harness.call("GET", "/messages/" + second)
        let codes = (try message.json()["text"] as? [String: Any])?["codes"] as? [[String: Any]]
        #expect(codes?.first?["value"] as? String == "482913", "the code stored at delivery")
        #expect(try await harness.call("GET", "/messages/" + second, key: "tm_pro_ada").status == 404)
        #expect(try await harness.call("DELETE", "/messages/" + second, key: "tm_pro_ada").status == 404)
        #expect(try await harness.call("DELETE", "/messages/" + second).status == 204)
        #expect(try await harness.call("GET", "/messages/" + second).status == 404)
        #expect(try await harness.call("DELETE", "/messages?server=e07knff9").status == 204)
        #expect(try Self.items(try await harness.call("GET", "/messages?server=e07knff9")).isEmpty)
        #expect(try await harness.call("GET", "/messages?server=zzzzzzzz").status == 404)
    }

    @Test(
        "await answers at once with a stored match, wakes for a delivery, and is 204 after its timeout",
        arguments: StorageBackend.allCases)
    func await(_ backend: StorageBackend) async throws {
        let harness = try Harness(backend)
        try await harness.deliver("Old mail")
        let stored = try await harness.call("POST", "/messages/await?server=e07knff9", json: #"{"subject":"Old"}"#)
        #expect(try stored.json()["subject"] as? String == "Old mail")
        let waiting = Task {
            try await harness.call(
                "POST", "/messages/await?server=e07knff9&timeout=20000", json: #"{"subject":"Sign-in code"}"#)
        }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        let id = try await harness.deliver("Your Sign-in code")
        let woken = try await waiting.value
        #expect(ContinuousClock.now - started < .seconds(5), "woken by the delivery, not the timeout")
        #expect(try woken.json()["id"] as? String == id)
        let timedOut = try await harness.call(
            "POST", "/messages/await?server=e07knff9&timeout=50", json: #"{"subject":"never"}"#)
        #expect(timedOut.status == 204 && timedOut.body.isEmpty)
    }
}

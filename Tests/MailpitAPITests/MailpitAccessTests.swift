import Base64Coding
import Foundation
import MailStore
import PosternTestSupport
import Testing

@testable import MailpitAPI

/// Who may look: the operator's token as a bearer or as Basic's password sees every address; a Pro user's API token
/// sees that user's sandbox only; no credential, a wrong one, or another Pro user's token see nothing of it.
@Suite("Mailpit API: who may look", .serialized)
struct MailpitAccessTests {
    static let ada = MailpitSandbox(address: "sandbox-ada@sandbox.localhost", owner: "pro-ada")
    static let bob = MailpitSandbox(address: "sandbox-bob@sandbox.localhost", owner: "pro-bob")

    static func message(_ subject: String) -> String {
        "From: a@example.com\r\nTo: b@example.com\r\nSubject: \(subject)\r\n\r\nHello\r\n"
    }

    @Test(
        "no credential, a wrong token and a wrong Basic password are 401 in Mailpit's shape",
        arguments: StorageBackend.allCases)
    func refused(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend, sandboxes: ["tm_pro_ada": Self.ada])
        try await harness.deliver(Self.message("secret"), to: "inbox@mail.localhost")
        for token in [nil, "wrong-token", MailpitHarness.operatorToken + "x", "tm_pro_nobody"] {
            let response = try await harness.call("GET", "/api/v1/messages", token: token)
            #expect(response.status == 401, "\(token ?? "none")")
            #expect(response.text == "Unauthorized.\n")
            #expect(response.header("WWW-Authenticate") == #"Basic realm="Login""#)
        }
        let wrongBasic = try await harness.client.request(
            "GET", "/mailpit/api/v1/messages",
            headers: [("Authorization", "Basic " + Base64.encode(Array("user:nope".utf8)))], body: [])
        #expect(wrongBasic.status == 401)
        let emptyPassword = try await harness.client.request(
            "GET", "/mailpit/api/v1/messages",
            headers: [("Authorization", "Basic " + Base64.encode(Array((MailpitHarness.operatorToken + ":").utf8)))],
            body: [])
        #expect(emptyPassword.status == 401, "the token as the user name is no password")
    }

    @Test(
        "the operator's token as a bearer or as Basic's password sees every address", arguments: StorageBackend.allCases
    )
    func operatorSeesAll(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend, sandboxes: ["tm_pro_ada": Self.ada])
        let inbox = try await harness.deliver(Self.message("inbox"), to: "inbox@mail.localhost")
        let captured = try await harness.deliver(Self.message("sandbox"), to: Self.ada.address)
        let bearer = try await harness.call("GET", "/api/v1/messages")
        #expect(Set(try MailpitHarness.ids(bearer)) == [inbox, captured])
        let basic = try await harness.client.request(
            "GET", "/mailpit/api/v1/messages",
            headers: [("Authorization", "Basic " + Base64.encode(Array("any:\(MailpitHarness.operatorToken)".utf8)))],
            body: [])
        #expect(basic.status == 200)
        #expect(Set(try MailpitHarness.ids(basic)) == [inbox, captured])
    }

    @Test(
        "a Pro user's token sees their sandbox only; another Pro user's token is refused their messages",
        arguments: StorageBackend.allCases)
    func proSandbox(_ backend: StorageBackend) async throws {
        let harness = try MailpitHarness(backend, sandboxes: ["tm_pro_ada": Self.ada, "tm_pro_bob": Self.bob])
        try await harness.deliver(Self.message("inbox"), to: "inbox@mail.localhost")
        let adas = try await harness.deliver(Self.message("ada's"), to: Self.ada.address)
        let bobs = try await harness.deliver(Self.message("bob's"), to: Self.bob.address)
        #expect(
            try MailpitHarness.ids(try await harness.call("GET", "/api/v1/messages", token: "tm_pro_ada")) == [adas])
        #expect(
            try MailpitHarness.ids(try await harness.call("GET", "/api/v1/search?query=bob", token: "tm_pro_ada"))
                .isEmpty)
        for path in [
            "/api/v1/message/\(bobs)", "/api/v1/message/\(bobs)/raw", "/api/v1/message/\(bobs)/headers",
            "/view/\(bobs).txt",
        ] {
            let response = try await harness.call("GET", path, token: "tm_pro_ada")
            #expect(response.status == 404, "\(path)")
        }
        // Ada's deletes and read marks never reach Bob's mail.
        #expect(
            try await harness.call("PUT", "/api/v1/messages", token: "tm_pro_ada", json: ["Read": true]).status == 200)
        #expect(
            try await harness.call("DELETE", "/api/v1/messages", token: "tm_pro_ada", json: ["IDs": [bobs]]).status
                == 200)
        #expect(try await harness.call("DELETE", "/api/v1/messages", token: "tm_pro_ada").status == 200)
        let left = try await harness.call("GET", "/api/v1/messages", token: "tm_pro_bob")
        #expect(try MailpitHarness.ids(left) == [bobs])
        #expect(try left.json()["unread"] as? Int == 1)
        #expect(try MailpitHarness.ids(try await harness.call("GET", "/api/v1/messages", token: "tm_pro_ada")).isEmpty)
        #expect(try await harness.call("GET", "/api/v1/message/latest", token: "tm_pro_ada").status == 404)
    }
}

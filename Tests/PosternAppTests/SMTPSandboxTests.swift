import Foundation
import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// The SMTP sandbox end to end: Python's smtplib submits over STARTTLS with a Pro API token as the password, and
/// the seven `/api/user/sandbox` endpoints read what was captured (SQLite and PostgreSQL).
@Suite("SMTP sandbox")
struct SMTPSandboxTests {
    /// Submits `message` through the sandbox on `port`; prints what smtplib said: `{}` (every recipient taken),
    /// or `error <code>` for a refused step.
    /// A server with its sandbox on a free port and a Pro user `email` with one API token made over HTTP.
    struct ProSandbox {
        let server: TestServer
        let port: Int
        let client: TestHTTPClient
        /// The Pro JWT, and as a header.
        let jwt: String
        var auth: [(String, String)] { [("Authorization", "Bearer \(jwt)")] }
        /// The `tm_pro_` API token and its id.
        let token: String
        let tokenID: String

        static func start(
            _ backend: StorageBackend, email: String = "box@example.com",
            _ configure: @escaping (inout PosternConfiguration) -> Void = { _ in }
        ) async throws -> ProSandbox {
            let server = try await TestServer.start(backend) {
                $0.sandbox.smtpPort = 0
                configure(&$0)
            }
            let port = try #require(server.runtime.sandboxListenAddress?.split(separator: ":").last.flatMap { Int($0) })
            _ = try await Operations.createProUser(
                configuration: server.runtime.configuration, email: email, password: "pro-password", maxAccounts: 1,
                logger: Logger(label: "test"))
            let client = try server.client()
            let login = try await client.json("POST", "/api/user/login", ["email": email, "password": "pro-password"])
            let jwt = try #require(try login.json()["token"] as? String)
            let made = try await client.json(
                "POST", "/api/user/tokens", ["name": "smtp"], headers: [("Authorization", "Bearer \(jwt)")]
            ).json()
            return ProSandbox(
                server: server, port: port, client: client, jwt: jwt, token: try #require(made["token"] as? String),
                tokenID: try #require(made["id"] as? String))
        }
    }

    static func submit(
        port: Int, password: String, starttls: Bool = true, recipients: [String], message: String
    ) async throws -> String {
        let script = """
            import smtplib, ssl, sys, json
            try:
                with smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=120) as s:
                    if sys.argv[3] == "tls":
                        s.starttls(context=ssl._create_unverified_context())
                    s.login("anyone", sys.argv[2])
                    refused = s.sendmail("sender@example.net", json.loads(sys.argv[4]), sys.stdin.buffer.read())
                print(json.dumps(refused))
            except smtplib.SMTPResponseException as e:
                print("error", e.smtp_code)
            except smtplib.SMTPException as e:
                print("error", type(e).__name__)
            """
        let list = String(decoding: try JSONSerialization.data(withJSONObject: recipients), as: UTF8.self)
        return try await PythonScript.snippet(
            script, arguments: [String(port), password, starttls ? "tls" : "plain", list], input: message)
    }

    @Test(
        "smtplib over STARTTLS with an API token: captured, never relayed, read back through the seven endpoints",
        arguments: StorageBackend.allCases)
    func captureAndRead(_ backend: StorageBackend) async throws {
        let sandbox = try await ProSandbox.start(backend)
        let (server, port, client, auth, token) = (sandbox.server, sandbox.port, sandbox.client, sandbox.auth, sandbox.token)
        defer { Task { await server.stop() } }

        let before = try await client.request("GET", "/api/user/sandbox", headers: auth).json()
        #expect(before["enabled"] as? Bool == false && before["account_id"] is NSNull && before["used"] is NSNull)
        #expect(before["smtp_port"] as? Int == port && before["auth_method"] as? String == "PLAIN")

        #expect(
            try await Self.submit(port: port, password: "tm_pro_wrong", recipients: ["a@example.org"], message: "x")
                == "error 535")
        let message = """
            From: Sender <sender@example.net>\r
            To: someone@example.org\r
            Subject: Sandbox check\r
            Content-Type: multipart/mixed; boundary=b\r
            \r
            --b\r
            Content-Type: text/plain\r
            \r
            Hello sandbox\r
            --b\r
            Content-Type: text/plain; name=a.txt\r
            Content-Disposition: attachment; filename=a.txt\r
            \r
            attached\r
            --b--\r

            """
        let sent = try await Self.submit(
            port: port, password: token, recipients: ["someone@example.org", "other@elsewhere.test"], message: message)
        #expect(sent == "{}")

        let info = try await client.request("GET", "/api/user/sandbox", headers: auth).json()
        #expect(info["enabled"] as? Bool == true && info["quota"] as? Int == 104_857_600)
        let address = try #require(info["address"] as? String)
        #expect(address.hasPrefix("sandbox-") && address.hasSuffix("@sandbox.mail.localhost"))
        #expect((info["used"] as? Int ?? 0) > 0)
        let list = try await client.request("GET", "/api/user/sandbox/messages?page=1", headers: auth).json()
        let messages = try #require(list["messages"] as? [[String: Any]])
        #expect(messages.count == 1 && list["page"] as? Int == 1)
        let id = try #require(messages.first?["id"] as? String)
        #expect(messages.first?["subject"] as? String == "Sandbox check")

        let detail = try await client.request("GET", "/api/user/sandbox/messages/\(id)", headers: auth).json()
        #expect(detail["address"] as? String == "someone@example.org")
        #expect(detail["recipients"] as? [String] == ["someone@example.org", "other@elsewhere.test"])
        #expect((detail["text_body"] as? String)?.contains("Hello sandbox") == true)
        #expect((detail["attachments"] as? [[String: Any]])?.first?["filename"] as? String == "a.txt")
        let source = try await client.request("GET", "/api/user/sandbox/messages/\(id)/source", headers: auth)
        #expect(source.status == 200 && source.header("Content-Type") == "message/rfc822")
        #expect(source.header("Content-Disposition") == #"attachment; filename="message.eml""#)
        let attachment = try await client.request(
            "GET", "/api/user/sandbox/messages/\(id)/attachments/0", headers: auth)
        #expect(attachment.status == 200 && String(decoding: attachment.body, as: UTF8.self) == "attached")
        let badIndex = try await client.request("GET", "/api/user/sandbox/messages/\(id)/attachments/7", headers: auth)
        #expect(try badIndex.status == 400 && badIndex.json()["error"] as? String == "invalid_index")
        let unknown = try await client.request("GET", "/api/user/sandbox/messages/nope", headers: auth)
        #expect(try unknown.status == 404 && unknown.json()["error"] as? String == "not_found")
        // The sandbox is no account, and mail from outside never reaches its address.
        let accounts = try await client.request("GET", "/api/user/accounts", headers: auth).json()
        #expect((accounts["accounts"] as? [Any])?.isEmpty == true)

        let deleted = try await client.request("DELETE", "/api/user/sandbox/messages/\(id)", headers: auth)
        #expect(deleted.status == 204)
        #expect(
            try await Self.submit(
                port: port, password: token, recipients: ["x@example.org"], message: "Subject: 2\r\n\r\n2\r\n") == "{}")
        #expect(
            try await Self.submit(
                port: port, password: token, recipients: ["y@example.org"], message: "Subject: 3\r\n\r\n3\r\n") == "{}")
        let purged = try await client.request("DELETE", "/api/user/sandbox/messages", headers: auth).json()
        #expect(purged["deleted"] as? Int == 2)
        let empty = try await client.request("GET", "/api/user/sandbox/messages", headers: auth).json()
        #expect((empty["messages"] as? [Any])?.isEmpty == true)
        let anonymous = try await client.request("GET", "/api/user/sandbox")
        #expect(anonymous.status == 401)
    }

    @Test(
        "AUTH before STARTTLS is refused 538 when plaintext AUTH is off, loopback included",
        arguments: StorageBackend.allCases)
    func plaintextRefused(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.sandbox.smtpPort = 0
            $0.sandbox.plaintextAuthOnLoopback = false
        }
        defer { Task { await server.stop() } }
        let port = try #require(server.runtime.sandboxListenAddress?.split(separator: ":").last.flatMap { Int($0) })
        let answer = try await Self.submit(
            port: port, password: "tm_pro_anything", starttls: false, recipients: ["a@example.org"], message: "x")
        #expect(answer == "error SMTPNotSupportedError")  // EHLO offers no AUTH before TLS: smtplib does not try
    }

    @Test(
        "a session whose API token is revoked after AUTH gets 530 at its next MAIL FROM; nothing is captured",
        arguments: StorageBackend.allCases)
    func revokedTokenMidSession(_ backend: StorageBackend) async throws {
        let sandbox = try await ProSandbox.start(backend, email: "revoke@example.com")
        let (server, port, client, auth) = (sandbox.server, sandbox.port, sandbox.client, sandbox.auth)
        let (token, tokenID, jwt) = (sandbox.token, sandbox.tokenID, sandbox.jwt)
        defer { Task { await server.stop() } }
        // smtplib authenticates (on loopback, before TLS), the token is revoked over HTTP, then the same session sends.
        let script = """
            import smtplib, sys, urllib.request
            with smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=120) as s:
                s.login("anyone", sys.argv[2])
                request = urllib.request.Request(
                    "http://127.0.0.1:" + sys.argv[3] + "/api/user/tokens/" + sys.argv[4], method="DELETE",
                    headers={"Authorization": "Bearer " + sys.argv[5]})
                print(urllib.request.urlopen(request).status)
                print(s.docmd("MAIL", "FROM:<sender@example.net>")[0])
                print(s.docmd("RSET")[0])
            """
        let output = try await PythonScript.snippet(
            script, arguments: [String(port), token, String(server.port), tokenID, jwt], input: "")
        #expect(output.split(separator: "\n") == ["204", "530", "250"])
        let messages = try await client.request("GET", "/api/user/sandbox/messages", headers: auth).json()
        #expect((messages["messages"] as? [Any])?.isEmpty == true)
    }
}

import Foundation
import MailboxAccounts
import PosternTestSupport
import Testing

@testable import PosternApp

/// Mail over SMTP into the mail store, read back through Mail.td's endpoints: one `postern serve` is the whole
/// local stand-in.
@Suite("SMTP delivery into the mail store")
struct SMTPDeliveryTests {
    /// Sends `message` with Python's smtplib (unmodified) to `recipients`; returns smtplib's refusals or error.
    static func send(port: Int, from: String, to recipients: [String], message: String) async throws -> String {
        let script = """
            import smtplib, sys, json
            try:
                with smtplib.SMTP("127.0.0.1", \(port), timeout=120) as s:
                    refused = s.sendmail(sys.argv[1], json.loads(sys.argv[2]), sys.stdin.buffer.read())
                print(json.dumps({k: v[0] for k, v in refused.items()}))
            except smtplib.SMTPRecipientsRefused as e:
                print(json.dumps({k: v[0] for k, v in e.recipients.items()}))
            except smtplib.SMTPException as e:
                print("error", e)
            """
        let recipientsJSON = String(decoding: try JSONSerialization.data(withJSONObject: recipients), as: UTF8.self)
        return try await PythonScript.snippet(script, arguments: [from, recipientsJSON], input: message)
    }

    @Test(
        "smtplib delivers to a mailbox account and an agent inbox; foreign and unknown recipients are refused",
        arguments: StorageBackend.allCases)
    func deliver(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let smtpPort = try #require(server.runtime.smtpListenAddress?.split(separator: ":").last.flatMap { Int($0) })
        let client = try server.client()
        let account = try await client.createMailboxAccount("inbox@mail.localhost")
        let token = try #require(account["token"] as? String)

        let message = """
            From: Sender <sender@example.com>\r
            To: inbox@mail.localhost\r
            Subject: =?utf-8?Q?Your_code_=E2=9C=93?=\r
            Content-Type: multipart/mixed; boundary=b\r
            \r
            --b\r
            Content-Type: text/plain; charset=utf-8\r
            \r
            Your code is 123456\r
            ..a line that starts with a dot\r
            --b\r
            Content-Type: text/plain; name=code.txt\r
            Content-Disposition: attachment; filename=code.txt\r
            \r
            123456\r
            --b--\r

            """
        let refused = try await Self.send(
            port: smtpPort, from: "sender@example.com",
            to: ["inbox@mail.localhost", "nobody@mail.localhost", "someone@example.org"], message: message)
        #expect(refused == #"{"nobody@mail.localhost": 550, "someone@example.org": 550}"#, "\(refused)")

        let list = try await client.request(
            "GET", "/api/accounts/inbox@mail.localhost/messages", headers: [("Authorization", "Bearer \(token)")]).json()
        let messages = try #require(list["messages"] as? [[String: Any]])
        #expect(messages.count == 1)
        #expect(messages.first?["subject"] as? String == "Your code ✓")
        #expect(messages.first?["sender"] as? String == "sender@example.com")
        let messageID = try #require(messages.first?["id"] as? String)
        let detail = try await client.request(
            "GET", "/api/accounts/inbox@mail.localhost/messages/\(messageID)",
            headers: [("Authorization", "Bearer \(token)")]).json()
        #expect((detail["text_body"] as? String)?.contains(".a line that starts with a dot") == true)
        #expect((detail["attachments"] as? [[String: Any]])?.first?["filename"] as? String == "code.txt")
        let waited = try await client.request(
            "GET", "/api/accounts/inbox@mail.localhost/messages/wait?timeout=0",
            headers: [("Authorization", "Bearer \(token)")])
        #expect(waited.status == 200)

        // An agent inbox is a local address too.
        try await server.runtime.database.write { connection in
            _ = try connection.run(
                "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES ('a1', 'smtp-agent', ?, 1)",
                [.blob(Array(repeating: 0, count: 32))])
        }
        #expect(try await Self.send(port: smtpPort, from: "", to: ["smtp-agent@agents.localhost"], message: "Subject: hi\r\n\r\nhello\r\n") == "{}")
        let stored = try await server.runtime.database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM mail_messages WHERE address = 'smtp-agent@agents.localhost'").first?.int("n")
        }
        #expect(stored == 1)
    }

    @Test(
        "what SMTP takes gets a Received field on top (RFC 5321 4.4): the client, this server, its one recipient",
        arguments: StorageBackend.allCases)
    func receivedTrace(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        let smtpPort = try #require(server.runtime.smtpListenAddress?.split(separator: ":").last.flatMap { Int($0) })
        let hostname = server.runtime.configuration.smtp.hostname
        try await server.runtime.database.write { connection in
            for (digit, name) in [(UInt8(1), "trace-one"), (UInt8(2), "trace-two")] {
                _ = try connection.run(
                    "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES (?, ?, ?, 1)",
                    [.text("a\(digit)"), .text(name), .blob(Array(repeating: digit, count: 32))])
            }
        }
        func raw(_ address: String) async throws -> [String] {
            try await server.runtime.database.read { connection in
                try connection.query(
                    "SELECT raw FROM mail_messages WHERE address = ? ORDER BY received_at, id", [.text(address)]
                ).compactMap { $0.blob("raw").map { String(decoding: $0, as: UTF8.self) } }
            }
        }
        let message = "From: sender@example.com\r\nSubject: traced\r\n\r\nhello\r\n"
        #expect(
            try await Self.send(port: smtpPort, from: "sender@example.com", to: ["trace-one@agents.localhost"], message: message)
                == "{}")
        let one = try #require(try await raw("trace-one@agents.localhost").first)
        #expect(one.hasPrefix("Received: from "), "\(one)")
        #expect(one.hasSuffix(message))
        let field = String(one.dropLast(message.count))
        #expect(field.contains(" ([127.0.0.1])\r\n\tby \(hostname) (Postern) with ESMTP\r\n"), "\(field)")
        #expect(field.contains("\tfor <trace-one@agents.localhost>;\r\n\t"), "\(field)")
        #expect(field.hasSuffix(" +0000\r\n"))

        // Two recipients: the field names neither, so that each copy tells nothing of the other.
        #expect(
            try await Self.send(
                port: smtpPort, from: "sender@example.com",
                to: ["trace-one@agents.localhost", "trace-two@agents.localhost"], message: message) == "{}")
        // Both arrived in the same second: told apart by content, not by order.
        let ones = try await raw("trace-one@agents.localhost")
        #expect(ones.count == 2 && ones.filter { $0.contains("for <") } == [one])
        let copies = ones.filter { $0 != one } + (try await raw("trace-two@agents.localhost"))
        #expect(copies.count == 2)
        for copy in copies {
            #expect(copy.hasPrefix("Received: from ") && copy.hasSuffix(message))
            #expect(!copy.contains("for <"), "\(copy)")
        }
    }

    @Test(
        "a full inbox is answered 552 5.2.2 and a message past a MIME limit 554 5.6.0, never 451",
        arguments: StorageBackend.allCases)
    func permanentRefusals(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.agent.inboxQuota = 600 }
        defer { Task { await server.stop() } }
        let smtpPort = try #require(server.runtime.smtpListenAddress?.split(separator: ":").last.flatMap { Int($0) })
        try await server.runtime.database.write { connection in
            _ = try connection.run(
                "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES ('a1', 'full-agent', ?, 1)",
                [.blob(Array(repeating: 0, count: 32))])
        }
        let to = ["full-agent@agents.localhost"]
        #expect(try await Self.send(port: smtpPort, from: "", to: to, message: "Subject: small\r\n\r\nhello\r\n") == "{}")
        let large = "Subject: large\r\n\r\n" + String(repeating: "x", count: 1000) + "\r\n"
        let full = try await Self.send(port: smtpPort, from: "", to: to, message: large)
        #expect(full.hasPrefix("error (552, b'5.2.2 Mailbox full')"), "\(full)")

        // Seventeen nested multiparts: one past the MIME parser's depth limit.
        var nested = "text\r\n"
        for level in 0..<17 {
            nested = "Content-Type: multipart/mixed; boundary=b\(level)\r\n\r\n--b\(level)\r\n\(nested)\r\n--b\(level)--\r\n"
        }
        let unreadable = try await Self.send(port: smtpPort, from: "", to: to, message: "Subject: deep\r\n" + nested)
        #expect(unreadable.hasPrefix("error (554, b'5.6.0 Message content not accepted')"), "\(unreadable)")
        let stored = try await server.runtime.database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM mail_messages WHERE address = 'full-agent@agents.localhost'")
                .first?.int("n")
        }
        #expect(stored == 1)
    }
}

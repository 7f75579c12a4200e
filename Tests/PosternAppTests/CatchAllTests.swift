import AuthCrypto
import Foundation
import MailDelivery
import PosternTestSupport
import Storage
import Testing

@testable import PosternApp

/// `POSTERN_SMTP_ACCEPT` and `POSTERN_RECIPIENT_DELIMITER` end to end: a real SMTP client (smtplib) against
/// `postern serve`, the store read back.
@Suite("SMTP catch-all and subaddressing")
struct CatchAllTests {
    static let message = "From: app@example.com\r\nTo: someone@example.org\r\nSubject: Welcome\r\n\r\nYour code is 42\r\n"

    static func smtpPort(_ server: TestServer) throws -> Int {
        try #require(server.runtime.smtpListenAddress?.split(separator: ":").last.flatMap { Int($0) })
    }

    /// An agent inbox `name@agents.localhost`: a local address with nothing else to set up.
    static func addAgent(_ name: String, to server: TestServer) async throws {
        try await server.runtime.database.write { connection in
            _ = try connection.run(
                "INSERT INTO agent_accounts (id, username, api_key_digest, created_at) VALUES (?, ?, ?, 1)",
                [.text(name), .text(name), .blob(SHA256.hash(name))])
        }
    }

    /// (address, envelope_to) of every stored message, in arrival order.
    static func stored(_ server: TestServer) async throws -> [[String]] {
        try await server.runtime.database.read { connection in
            try connection.query("SELECT address, envelope_to FROM mail_messages ORDER BY received_seq").map {
                [$0.text("address") ?? "", $0.text("envelope_to") ?? "NULL"]
            }
        }
    }

    static func outboxCount(_ server: TestServer) async throws -> Int64? {
        try await server.runtime.database.read { connection in
            try connection.query("SELECT COUNT(*) AS n FROM mail_outbox").first?.int("n")
        }
    }

    @Test(
        "accept=any: an unknown local user and a foreign domain are 250 and kept in the catch-all, never relayed",
        arguments: StorageBackend.allCases)
    func acceptAny(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.recipients.acceptAny = true }
        defer { Task { await server.stop() } }
        try await Self.addAgent("tester", to: server)
        let refused = try await SMTPDeliveryTests.send(
            port: try Self.smtpPort(server), from: "app@example.com",
            to: ["tester@agents.localhost", "nobody@mail.localhost", "Someone@Example.org"], message: Self.message)
        #expect(refused == "{}", "\(refused)")
        #expect(
            try await Self.stored(server) == [
                ["tester@agents.localhost", "tester@agents.localhost"],
                [RecipientPolicy.catchAllAddress, "nobody@mail.localhost, someone@example.org"],
            ])
        #expect(try await Self.outboxCount(server) == 0)
    }

    @Test(
        "accept=local (the default) keeps refusing unknown and foreign recipients with 550",
        arguments: StorageBackend.allCases)
    func acceptLocal(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        #expect(server.runtime.configuration.recipients.acceptAny == false)
        let refused = try await SMTPDeliveryTests.send(
            port: try Self.smtpPort(server), from: "app@example.com",
            to: ["nobody@mail.localhost", "someone@example.org"], message: Self.message)
        #expect(refused == #"{"nobody@mail.localhost": 550, "someone@example.org": 550}"#, "\(refused)")
        #expect(try await Self.stored(server).isEmpty)
    }

    @Test(
        "a subaddress is delivered to its mailbox with the tag kept; an account named with the + itself wins",
        arguments: StorageBackend.allCases)
    func subaddress(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend)
        defer { Task { await server.stop() } }
        try await Self.addAgent("alice", to: server)
        try await Self.addAgent("bob+list", to: server)
        let refused = try await SMTPDeliveryTests.send(
            port: try Self.smtpPort(server), from: "app@example.com",
            to: ["alice+signup@agents.localhost", "alice+reset@agents.localhost", "bob+list@agents.localhost"],
            message: Self.message)
        #expect(refused == "{}", "\(refused)")
        #expect(
            try await Self.stored(server) == [
                ["alice@agents.localhost", "alice+signup@agents.localhost, alice+reset@agents.localhost"],
                ["bob+list@agents.localhost", "bob+list@agents.localhost"],
            ])
    }

    @Test(
        "an empty delimiter turns subaddressing off: the tagged address is an unknown user (550)",
        arguments: StorageBackend.allCases)
    func subaddressOff(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) { $0.recipients.recipientDelimiter = "" }
        defer { Task { await server.stop() } }
        try await Self.addAgent("alice", to: server)
        let refused = try await SMTPDeliveryTests.send(
            port: try Self.smtpPort(server), from: "app@example.com", to: ["alice+signup@agents.localhost"],
            message: Self.message)
        #expect(refused == #"{"alice+signup@agents.localhost": 550}"#, "\(refused)")
        #expect(try await Self.stored(server).isEmpty)
    }

    @Test("the catch-all's quota refuses with 552 once full", arguments: StorageBackend.allCases)
    func catchAllQuota(_ backend: StorageBackend) async throws {
        let server = try await TestServer.start(backend) {
            $0.recipients.acceptAny = true
            $0.recipients.catchAllQuota = 300  // one message and its Received field (about 230 bytes), not two
        }
        defer { Task { await server.stop() } }
        let port = try Self.smtpPort(server)
        #expect(try await SMTPDeliveryTests.send(port: port, from: "", to: ["x@example.org"], message: Self.message) == "{}")
        let full = try await SMTPDeliveryTests.send(port: port, from: "", to: ["x@example.org"], message: Self.message)
        #expect(full.hasPrefix("error (552"), "\(full)")
    }

    @Test(
        "one info line per SMTP transaction: client, MAIL FROM, each RCPT with its code, message id, size; no body",
        arguments: StorageBackend.allCases)
    func transactionLogLine(_ backend: StorageBackend) async throws {
        let capture = DataDirectoryTests.Capture()
        let server = try await TestServer.start(backend, logger: DataDirectoryTests.logger(capture))
        defer { Task { await server.stop() } }
        try await Self.addAgent("tester", to: server)
        let refused = try await SMTPDeliveryTests.send(
            port: try Self.smtpPort(server), from: "app@example.com",
            to: ["tester@agents.localhost", "nobody@mail.localhost"], message: Self.message)
        #expect(refused == #"{"nobody@mail.localhost": 550}"#, "\(refused)")
        let row = try #require(
            try await server.runtime.database.read { try $0.query("SELECT id, size, raw FROM mail_messages", []).first })
        let id = try #require(row.text("id"))
        // The line counts the bytes the client sent; the store holds them under the server's Received field.
        let raw = String(decoding: try #require(row.blob("raw")), as: UTF8.self)
        let trace = try #require(raw.range(of: " +0000\r\n")).upperBound
        let size = try #require(row.int("size")) - Int64(raw.utf8[..<trace].count)
        let lines = capture.text.split(separator: "\n").filter { $0.contains("smtp transaction") }
        #expect(lines.count == 1, "\(capture.text)")
        let line = String(lines.first ?? "")
        #expect(line.contains(" info "), "\(line)")
        #expect(line.contains("client=127.0.0.1"), "\(line)")
        #expect(line.contains("mail_from=app@example.com"), "\(line)")
        #expect(line.contains("tester@agents.localhost 250, nobody@mail.localhost 550"), "\(line)")
        #expect(line.contains("message_id=\(id)"), "\(line)")
        #expect(line.contains("size=\(size)"), "\(line)")
        #expect(line.contains("result=250"), "\(line)")
        #expect(!capture.text.contains("Your code is 42") && !capture.text.contains("Welcome"), "\(capture.text)")
    }
}

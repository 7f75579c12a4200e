import MIME
import EmbeddedResources
import Foundation
import Logging
import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// A migrated database of one backend, removed with the harness.
final class MailDatabase: @unchecked Sendable {
    let test: TestDatabase
    var database: any SQLDatabase { test.database }

    init(_ backend: StorageBackend) throws {
        test = try backend.makeDatabase(logger: Logger(label: "mail-store-tests"))
    }

    func run(_ sql: String, _ bindings: [SQLValue] = []) async throws {
        _ = try await database.write { try $0.run(sql, bindings) }
    }
}

@Suite("Mail store: delivery, quota, pages, reads, attachments, deletion", .serialized)
struct MailStoreTests {
    static func message(_ subject: String, bytes: Int = 100, attachments: [MailAttachment] = []) -> NewMailMessage {
        NewMailMessage(
            envelopeFrom: "sender@example.com", from: [MailAddress(name: "Sender", email: "sender@example.com")],
            to: [MailAddress(email: "a@mail.localhost")], subject: subject, messageID: "\(subject)@example.com",
            inReplyTo: ["parent@example.com"], references: ["root@example.com", "parent@example.com"],
            sentAt: 1_700_000_000, textBody: "Hello", preview: String(repeating: "p", count: 300),
            attachments: attachments, raw: Array(repeating: UInt8(ascii: "x"), count: bytes))
    }

    @Test("one copy per recipient in one transaction; every field reads back; the preview is cut at 256", arguments: StorageBackend.allCases)
    func deliverAndRead(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let pdf = MailAttachment(
            filename: "report.pdf", contentType: "application/pdf", contentID: nil, disposition: "attachment",
            data: [1, 2, 3])
        let ids = try await store.deliver(
            Self.message("first", attachments: [pdf]),
            to: [.init(address: "a@mail.localhost", quota: 1000), .init(address: "b@agents.localhost", quota: 1000)],
            folder: .inbox, now: 42)
        #expect(ids.count == 2 && ids[0] != ids[1])
        let read = try #require(try await store.message(address: "a@mail.localhost", id: ids[0]))
        #expect(read.summary.subject == "first" && read.summary.size == 100 && !read.summary.isRead)
        #expect(read.summary.receivedAt == 42 && read.summary.preview.count == 256)
        #expect(read.summary.from == [MailAddress(name: "Sender", email: "sender@example.com")])
        #expect(read.references == ["root@example.com", "parent@example.com"] && read.sentAt == 1_700_000_000)
        #expect(read.attachments == [
            MailAttachmentInfo(
                position: 0, filename: "report.pdf", contentType: "application/pdf", contentID: nil,
                disposition: "attachment", size: 3)
        ])
        let (info, data) = try #require(try await store.attachment(address: "a@mail.localhost", id: ids[0], position: 0))
        #expect(info.filename == "report.pdf" && data == [1, 2, 3])
        #expect(try await store.raw(address: "a@mail.localhost", id: ids[0])?.count == 100)
        // Scoped to the address: the other recipient's copy is not reachable through this one.
        #expect(try await store.message(address: "a@mail.localhost", id: ids[1]) == nil)
        #expect(try await store.attachment(address: "b@agents.localhost", id: ids[0], position: 0) == nil)
    }

    @Test("a copy past any recipient's quota stores nothing for anyone", arguments: StorageBackend.allCases)
    func quota(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        _ = try await store.deliver(Self.message("one", bytes: 600), to: [.init(address: "a@x", quota: 1000)], folder: .inbox, now: 1)
        await #expect(throws: MailStoreError.quotaExceeded(address: "a@x")) {
            try await store.deliver(
                Self.message("two", bytes: 600),
                to: [.init(address: "b@x", quota: 1000), .init(address: "a@x", quota: 1000)], folder: .inbox, now: 2)
        }
        #expect(try await store.used(address: "a@x") == 600)
        #expect(try await store.used(address: "b@x") == 0)
    }

    @Test("pages of 30, newest first; read marks count changes; delete takes the attachments", arguments: StorageBackend.allCases)
    func pagesReadsDelete(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        var ids: [String] = []
        for n in 0..<31 {
            ids += try await store.deliver(
                Self.message("m\(n)", attachments: [.init(filename: nil, contentType: "text/plain", contentID: nil, disposition: nil, data: [9])]),
                to: [.init(address: "a@x", quota: 1 << 20)], folder: .inbox, now: Int64(n))
        }
        let first = try await store.page(address: "a@x", page: 1)
        #expect(first.count == 30 && first[0].subject == "m30")
        #expect(try await store.page(address: "a@x", page: 2).map(\.subject) == ["m0"])
        #expect(try await store.page(address: "a@x", folder: .sent, page: 1).isEmpty)
        #expect(try await store.markRead(address: "a@x", ids: [ids[0], ids[0], "nope"]) == 1)
        #expect(try await store.markRead(address: "b@x", ids: nil) == 0)
        #expect(try await store.markRead(address: "a@x", ids: nil) == 30)
        #expect(try await store.delete(address: "a@x", id: ids[3]))
        #expect(!(try await store.delete(address: "a@x", id: ids[3])))
        let left = try await db.database.read { try $0.query("SELECT COUNT(*) AS n FROM mail_attachments").first?.int("n") }
        #expect(left == 30)
    }

    @Test("deleting a mailbox account deletes its mail", arguments: StorageBackend.allCases)
    func accountDeletion(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        try await db.run(
            "INSERT INTO mailbox_accounts (id, address, password_hash, quota, created_at) VALUES ('a1', 'a@mail.localhost', '', 1000, 1)")
        _ = try await store.deliver(Self.message("kept"), to: [.init(address: "a@mail.localhost", quota: 1000), .init(address: "z@mail.localhost", quota: 1000)], folder: .inbox, now: 1)
        try await db.run("DELETE FROM mailbox_accounts WHERE id = 'a1'")
        #expect(try await store.page(address: "a@mail.localhost", page: 1).isEmpty)
        #expect(try await store.page(address: "z@mail.localhost", page: 1).count == 1)
    }
}

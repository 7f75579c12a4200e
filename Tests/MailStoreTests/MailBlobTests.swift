import Foundation
import PosternTestSupport
import Storage
import Testing

@testable import MailStore

/// Uploaded blobs count against the quota of their address with its mail, and expire an hour after upload.
@Suite("Mail store: uploaded blobs, their quota and their expiry", .serialized)
struct MailBlobTests {
    static let hour = MailStore.blobLifetime

    @Test("a blob counts against the quota: mail and blobs together never pass it", arguments: StorageBackend.allCases)
    func quota(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        _ = try await store.deliver(
            MailStoreTests.message("m", bytes: 600), to: [.init(address: "a@x", quota: 1000)], folder: .inbox, now: 1)
        let id = try await store.putBlob(address: "a@x", type: "text/plain", data: .init(repeating: 1, count: 300),
            quota: 1000, now: 1)
        #expect(try await store.used(address: "a@x") == 900)
        await #expect(throws: MailStoreError.quotaExceeded(address: "a@x")) {
            try await store.putBlob(address: "a@x", type: "text/plain", data: .init(repeating: 1, count: 101),
                quota: 1000, now: 1)
        }
        // Delivery sees the blob too.
        await #expect(throws: MailStoreError.quotaExceeded(address: "a@x")) {
            try await store.deliver(
                MailStoreTests.message("n", bytes: 101), to: [.init(address: "a@x", quota: 1000)], folder: .inbox, now: 2)
        }
        #expect(try await store.blob(address: "a@x", id: id)?.data.count == 300)
        #expect(try await store.used(address: "b@x") == 0)
    }

    @Test("an hour after upload a blob is gone: at the address's next upload, or by the periodic purge",
        arguments: StorageBackend.allCases)
    func expiry(_ backend: StorageBackend) async throws {
        let db = try MailDatabase(backend)
        let store = MailStore(database: db.database)
        let old = try await store.putBlob(address: "a@x", type: "t/t", data: [1, 2, 3], quota: 10, now: 1000)
        let other = try await store.putBlob(address: "b@x", type: "t/t", data: [1, 2, 3], quota: 10, now: 1000)
        // Still there a second before the hour is up; the quota still counts it.
        await #expect(throws: MailStoreError.quotaExceeded(address: "a@x")) {
            try await store.putBlob(address: "a@x", type: "t/t", data: .init(repeating: 0, count: 8), quota: 10,
                now: 1000 + Self.hour - 1)
        }
        #expect(try await store.blob(address: "a@x", id: old) != nil)
        // At the hour, a new upload of the same address finds its room.
        _ = try await store.putBlob(address: "a@x", type: "t/t", data: .init(repeating: 0, count: 8), quota: 10,
            now: 1000 + Self.hour)
        #expect(try await store.blob(address: "a@x", id: old) == nil)
        #expect(try await store.blob(address: "b@x", id: other) != nil, "another address's blob waits for the purge")
        let purged = try db.database.writeSync { try MailStore.purgeExpiredBlobs($0, now: 1000 + Self.hour) }
        #expect(purged == 1)
        #expect(try await store.blob(address: "b@x", id: other) == nil)
        #expect(try await store.used(address: "b@x") == 0)
    }
}

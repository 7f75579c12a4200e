import ComputePool
import HTTP1
import PosternTestSupport
import Storage
import Testing

@testable import MailboxAccounts
@testable import MailboxRoutes

@Suite("Mailbox error mapping")
struct MailboxErrorMappingTests {
    @Test("pool overload and an unavailable store are 503 service_unavailable; the unexpected is a bare 500, reported")
    func mapping() {
        func expect(
            _ error: any Error, _ answer: MailboxError, reported: Bool, _ location: SourceLocation = #_sourceLocation
        ) {
            let mapped = MailboxService.mailboxError(error)
            #expect(mapped.answer == answer, sourceLocation: location)
            #expect(mapped.report == reported, sourceLocation: location)
        }
        expect(WorkerPoolError.overloaded, .serviceUnavailable, reported: false)
        expect(StorageError(.busy, "locked"), .serviceUnavailable, reported: false)
        expect(StorageError(.full, "disk full"), .serviceUnavailable, reported: false)
        expect(StorageError(.io, "io"), .serviceUnavailable, reported: false)
        expect(StorageError(.constraint, "check"), .internalError, reported: true)
        expect(StorageError(.corrupt, "not a database"), .internalError, reported: true)
        expect(MailboxError.addressTaken, .addressTaken, reported: false)
        expect(CancellationError(), .internalError, reported: true)
        let body = MailboxJSON.response(.serviceUnavailable)
        #expect(body.status.code == 503)
        #expect(body.body == Array(#"{"error":"service_unavailable"}"#.utf8))
        #expect(body.headers["Cache-Control"] == "no-store")
        #expect(body.headers["Retry-After"] == "1")
        #expect(MailboxJSON.response(.addressTaken).headers["Retry-After"] == nil)
    }
}

@Suite("Mailbox unexpected failures")
struct MailboxUnexpectedFailureTests {
    @Test(
        "a storage failure that is not unavailability is a bare 500, reported with the request id",
        arguments: StorageBackend.allCases)
    func bare500(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let token = try await harness.proToken(email: "broken@example.com")
        try harness.database.writeSync { try $0.execute("DROP TABLE mailbox_pro_tokens") }
        let response = await harness.send(.POST, "/api/user/tokens", json: #"{"name":"x"}"#, bearer: token)
        #expect(response.status == 500)
        #expect(response.body == Array(#"{"error":"internal_error"}"#.utf8))
        #expect(harness.unexpected.all == ["test"])
    }
}

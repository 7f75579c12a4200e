import ComputePool
import HTTP1
import Storage
import Testing

@testable import MailboxAccounts

@Suite("Mailbox error mapping")
struct MailboxErrorMappingTests {
    @Test("pool overload and an unavailable store are 503 service_unavailable; the unexpected is a bare 500")
    func mapping() {
        #expect(MailboxService.mailboxError(WorkerPoolError.overloaded) == .serviceUnavailable)
        #expect(MailboxService.mailboxError(StorageError(.busy, "locked")) == .serviceUnavailable)
        #expect(MailboxService.mailboxError(StorageError(.full, "disk full")) == .serviceUnavailable)
        #expect(MailboxService.mailboxError(StorageError(.io, "io")) == .serviceUnavailable)
        #expect(MailboxService.mailboxError(StorageError(.constraint, "check")) == .internalError)
        #expect(MailboxService.mailboxError(MailboxError.addressTaken) == .addressTaken)
        #expect(MailboxService.mailboxError(CancellationError()) == .internalError)
        let body = MailboxJSON.response(.serviceUnavailable)
        #expect(body.status.code == 503)
        #expect(body.body == Array(#"{"error":"service_unavailable"}"#.utf8))
        #expect(body.headers["Cache-Control"] == "no-store")
    }
}

import Testing

@testable import MailStore

/// The record of what retention pruned lately: bounded, oldest forgotten first.
@Suite("The pruned record: the newest ids, bounded")
struct MailPrunedRecordTests {
    @Test("past its capacity the oldest ids are forgotten; an id recorded twice counts once")
    func bounded() {
        let record = MailPrunedRecord()
        let ids = (0...MailPrunedRecord.capacity).map { "m\($0)" }
        record.record(["m0"])
        record.record(ids)
        #expect(!record.contains("m0"))
        #expect(record.contains("m1"))
        #expect(record.contains("m\(MailPrunedRecord.capacity)"))
        #expect(!record.contains("never"))
    }
}

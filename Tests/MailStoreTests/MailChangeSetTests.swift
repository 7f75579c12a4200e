import Testing

@testable import MailStore

@Suite("Mail change sets: what a run of the change log amounts to")
struct MailChangeSetTests {
    static func row(
        _ seq: Int64, _ id: String, _ kind: MailChange.Kind, thread: String? = nil, from: MailFolder? = nil,
        to: MailFolder? = nil
    ) -> MailChange {
        MailChange(
            seq: seq, messageID: id, threadID: thread ?? id, kind: kind,
            folderBefore: from ?? (kind == .created ? nil : .inbox), folderAfter: to ?? (kind == .destroyed ? nil : .inbox))
    }

    @Test("created, updated and destroyed by first and last row; created then destroyed is nowhere")
    func emails() {
        let log = [
            Self.row(4, "a", .created), Self.row(5, "b", .updated), Self.row(6, "a", .updated),
            Self.row(7, "c", .destroyed), Self.row(8, "d", .created), Self.row(9, "d", .destroyed),
            Self.row(10, "e", .updated), Self.row(11, "e", .destroyed),
        ]
        let set = MailChangeSet.emails(log, since: 3, state: 11, maxChanges: 100)
        #expect(set == MailChangeSet(created: ["a"], updated: ["b"], destroyed: ["c", "e"], newState: 11))
    }

    @Test("maxChanges cuts at a log row: the new state is that row's, and more changes remain")
    func maxChanges() {
        let log = [
            Self.row(2, "a", .created), Self.row(3, "a", .updated), Self.row(4, "b", .created),
            Self.row(5, "c", .created),
        ]
        let first = MailChangeSet.emails(log, since: 1, state: 5, maxChanges: 2)
        #expect(first == MailChangeSet(created: ["a", "b"], newState: 4, hasMoreChanges: true))
        let rest = MailChangeSet.emails(Array(log.drop { $0.seq <= 4 }), since: 4, state: 5, maxChanges: 2)
        #expect(rest == MailChangeSet(created: ["c"], newState: 5))
        #expect(MailChangeSet.emails([], since: 5, state: 5, maxChanges: 2) == MailChangeSet(newState: 5))
    }

    @Test("threads: started by their first message, destroyed when none of theirs is left")
    func threads() {
        let log = [
            Self.row(2, "t1", .created), Self.row(3, "r1", .created, thread: "t1"), Self.row(4, "t2", .updated),
            Self.row(5, "t3", .destroyed), Self.row(6, "t4", .created), Self.row(7, "t4", .destroyed),
        ]
        let set = MailChangeSet.threads(log, since: 1, state: 7, maxChanges: 10, existing: ["t1", "t2"])
        #expect(set == MailChangeSet(created: ["t1"], updated: ["t2"], destroyed: ["t3"], newState: 7))
    }

    @Test("mailboxes: every folder a message left or entered is updated")
    func mailboxes() {
        let log = [Self.row(2, "a", .created, to: .sent), Self.row(3, "b", .updated, from: .inbox, to: .drafts)]
        let set = MailChangeSet.mailboxes(log, since: 1, state: 3, maxChanges: 10)
        #expect(set == MailChangeSet(updated: ["sent", "inbox", "drafts"], newState: 3))
    }
}

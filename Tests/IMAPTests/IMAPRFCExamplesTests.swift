import SASL
import Testing

@testable import IMAP

/// Known answers from RFC 9051's and its extensions' examples, driven through the session with a scripted driver.
@Suite("IMAP RFC examples")
struct IMAPRFCExamplesTests {
    @Test("RFC 9051 §6.3.13: IDLE, new mail reported while idling, DONE, and IDLE again")
    func idleExample() {
        var harness = IMAPSessionHarness.loopback()
        harness.signIn()
        harness.send("A001 SELECT INBOX\r\n")
        harness.complete(
            [
                .flags([.deleted, .seen, .flagged]),
                .condition(
                    IMAPStatusResponse(
                        .ok, code: .permanentFlags([.deleted, .seen, .flagged], allowsKeywords: false), "Limited")),
                .exists(3),
                .condition(IMAPStatusResponse(.ok, code: .uidValidity(1), "UIDs valid")),
                .list(IMAPListItem(attributes: [], delimiter: "/", name: IMAPMailboxName("INBOX"))),
            ], IMAPStatusResponse(.ok, code: .readWrite, "SELECT completed"))
        harness.send("A002 IDLE\r\n")
        var actions: [IMAPSession.Action] = []
        harness.session.notify([.exists(4)], into: &actions)
        harness.apply(actions)
        harness.send("DONE\r\n")
        #expect(
            harness.take() == """
                * FLAGS (\\Deleted \\Seen \\Flagged)\r
                * OK [PERMANENTFLAGS (\\Deleted \\Seen \\Flagged)] Limited\r
                * 3 EXISTS\r
                * OK [UIDVALIDITY 1] UIDs valid\r
                * LIST () "/" INBOX\r
                A001 OK [READ-WRITE] SELECT completed\r
                + idling\r
                * 4 EXISTS\r
                A002 OK IDLE terminated\r

                """)
        harness.send("A004 IDLE\r\n")
        actions = []
        harness.session.notify([.expunge(2), .exists(3)], into: &actions)
        harness.session.notify([.expunge(3), .exists(2)], into: &actions)
        harness.apply(actions)
        harness.send("DONE\r\n")
        #expect(
            harness.take()
                == "+ idling\r\n* 2 EXPUNGE\r\n* 3 EXISTS\r\n* 3 EXPUNGE\r\n* 2 EXISTS\r\nA004 OK IDLE terminated\r\n")
        let inbox = IMAPSelection(mailbox: IMAPMailboxName("INBOX"), readOnly: false)
        #expect(
            harness.takeRequests().suffix(4) == [
                .idleStarted(selection: inbox), .idleEnded, .idleStarted(selection: inbox), .idleEnded,
            ])
    }

    @Test("RFC 4959 §3: AUTHENTICATE PLAIN with an initial response, and the same without one")
    func saslInitialResponse() {
        var harness = IMAPSessionHarness.loopback()
        _ = harness.take()
        harness.send("A01 AUTHENTICATE PLAIN dGVzdAB0ZXN0AHRlc3Q=\r\n")
        #expect(
            harness.takeRequests() == [
                .authenticate(
                    SASLStep(mechanism: "PLAIN", response: SASLMessage(base64: "dGVzdAB0ZXN0AHRlc3Q="), isFirst: true))
            ])
        harness.authenticated(.failed(.authenticationFailed))
        harness.send("A02 AUTHENTICATE PLAIN\r\n")
        #expect(harness.take() == "A01 NO [AUTHENTICATIONFAILED] Authentication failed\r\n+ \r\n")
        harness.send("dGVzdAB0ZXN0AHRlc3Q=\r\n")
        #expect(
            harness.takeRequests() == [
                .authenticate(
                    SASLStep(mechanism: "PLAIN", response: SASLMessage(base64: "dGVzdAB0ZXN0AHRlc3Q="), isFirst: false))
            ])
        harness.authenticated(.succeeded(user: "test"))
        #expect(harness.take().hasPrefix("A02 OK [CAPABILITY IMAP4rev1 IMAP4rev2 "))
    }

    @Test("RFC 9051 §6.4.4: SEARCH RETURN (MIN COUNT) and RETURN () answered with ESEARCH")
    func esearchExample() throws {
        var harness = IMAPSessionHarness.loopback()
        harness.select()
        harness.send("A282 SEARCH RETURN (MIN COUNT) FLAGGED SINCE 1-Feb-1994 NOT FROM \"Smith\"\r\n")
        let key = IMAPSearchKey.and([
            .flag(.flagged, set: true), .internalDate(.since, IMAPDate(year: 1994, month: 2, day: 1)),
            .not(.address(field: "FROM", contains: "Smith")),
        ])
        let inbox = IMAPSelection(mailbox: IMAPMailboxName("INBOX"), readOnly: false)
        #expect(
            harness.takeRequests() == [
                .run(
                    IMAPCommand(
                        tag: "A282",
                        kind: .search(IMAPSearchCommand(returnOptions: [.min, .count], key: key), uid: false)),
                    selection: inbox)
            ])
        harness.complete(
            [.esearch(IMAPESearchResult(tag: "A282", uid: false, min: 2, count: 3))],
            IMAPStatusResponse(.ok, "SEARCH completed"))
        harness.send("A283 SEARCH RETURN () FLAGGED SINCE 1-Feb-1994 NOT FROM \"Smith\"\r\n")
        #expect(
            harness.takeRequests() == [
                .run(
                    IMAPCommand(tag: "A283", kind: .search(IMAPSearchCommand(returnOptions: [], key: key), uid: false)),
                    selection: inbox)
            ])
        harness.complete(
            [.esearch(IMAPESearchResult(tag: "A283", uid: false, all: IMAPSequenceSet.ranges(of: [2, 10, 11])))],
            IMAPStatusResponse(.ok, "SEARCH completed"))
        #expect(
            harness.take() == """
                * ESEARCH (TAG "A282") MIN 2 COUNT 3\r
                A282 OK SEARCH completed\r
                * ESEARCH (TAG "A283") ALL 2,10:11\r
                A283 OK SEARCH completed\r

                """)
    }

    @Test("RFC 5819 §5: LIST RETURN (STATUS (MESSAGES UNSEEN)) answered with LIST and STATUS lines")
    func listStatusExample() throws {
        var harness = IMAPSessionHarness.loopback()
        harness.signIn()
        harness.send("A01 LIST \"\" % RETURN (STATUS (MESSAGES UNSEEN))\r\n")
        #expect(
            harness.takeRequests() == [
                .run(
                    IMAPCommand(
                        tag: "A01",
                        kind: .list(
                            IMAPListCommand(
                                reference: "", patterns: ["%"], returnOptions: [.status([.messages, .unseen])]))),
                    selection: nil)
            ])
        harness.complete(
            [
                .list(IMAPListItem(attributes: [], delimiter: ".", name: IMAPMailboxName("INBOX"))),
                .mailboxStatus(
                    IMAPMailboxName("INBOX"), [IMAPStatusValue(.messages, 17), IMAPStatusValue(.unseen, 16)]),
                .list(IMAPListItem(attributes: ["\\HasChildren"], delimiter: ".", name: IMAPMailboxName("foo"))),
                .mailboxStatus(IMAPMailboxName("foo"), [IMAPStatusValue(.messages, 30), IMAPStatusValue(.unseen, 29)]),
            ], IMAPStatusResponse(.ok, "List completed."))
        #expect(
            harness.take() == """
                * LIST () "." INBOX\r
                * STATUS INBOX (MESSAGES 17 UNSEEN 16)\r
                * LIST (\\HasChildren) "." foo\r
                * STATUS foo (MESSAGES 30 UNSEEN 29)\r
                A01 OK List completed.\r

                """)
    }
}

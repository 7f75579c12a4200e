import SASL
import Testing

@testable import IMAP

@Suite("IMAP session machine")
struct IMAPSessionTests {
    static let one: IMAPSequenceSet = .ranges([IMAPSequenceRange(.number(12), .number(12))])

    /// RFC 3501 §8's sample session, the server's part typed by a scripted driver; the transcript as the RFC has it
    /// but for the texts that are the server's own choice.
    static func sampleSession(byteByByte: Bool) -> String {
        var harness = IMAPSessionHarness.loopback(byteByByte: byteByByte)
        var transcript = harness.take()
        harness.send("a001 login mrc secret\r\n")
        #expect(harness.takeRequests() == [.login(username: "mrc", password: "secret")])
        harness.authenticated(.succeeded(user: "mrc"))
        harness.send("a002 select inbox\r\n")
        #expect(
            harness.takeRequests() == [
                .run(IMAPCommand(tag: "a002", kind: .select(IMAPMailboxName("INBOX"))), selection: nil)
            ])
        harness.complete(
            [
                .exists(18), .flags([.answered, .flagged, .deleted, .seen, .draft]), .recent(2),
                .condition(IMAPStatusResponse(.ok, code: .unseen(17), "Message 17 is the first unseen message")),
                .condition(IMAPStatusResponse(.ok, code: .uidValidity(3_857_529_045), "UIDs valid")),
            ], IMAPStatusResponse(.ok, code: .readWrite, "SELECT completed"))
        #expect(harness.session.state == .selected)
        let inbox = IMAPSelection(mailbox: IMAPMailboxName("INBOX"), readOnly: false)
        #expect(harness.session.selection == inbox)
        harness.send("a003 fetch 12 full\r\n")
        #expect(
            harness.takeRequests() == [
                .run(IMAPCommand(tag: "a003", kind: .fetch(one, IMAPFetchAttribute.full, uid: false)), selection: inbox)
            ])
        harness.complete(
            [
                .fetch(
                    12,
                    [
                        .flags([.seen]), .internalDate(IMAPDateTime(seconds: 837_596_665, zoneMinutes: -420)),
                        .rfc822Size(4286),
                        .envelope(IMAPResponseEncoderTests.sampleEnvelope),
                        .bodyStructure(
                            .part(
                                IMAPBodyPart(
                                    type: "TEXT", subtype: "PLAIN", parameters: [("CHARSET", "US-ASCII")],
                                    size: 3028, kind: .text(lines: 92))), extensible: false),
                    ])
            ], IMAPStatusResponse(.ok, "FETCH completed"))
        harness.send("a004 fetch 12 body[header]\r\n")
        let header = Array("Date: Wed, 17 Jul 1996 02:23:25 -0700 (PDT)\r\n\r\n".utf8)
        harness.complete(
            [.fetch(12, [.body(IMAPSection(text: .header), origin: nil, header)])],
            IMAPStatusResponse(.ok, "FETCH completed"))
        harness.send("a005 store 12 +flags \\deleted\r\n")
        #expect(harness.takeRequests().count == 2)
        harness.complete([.fetch(12, [.flags([.seen, .deleted])])], IMAPStatusResponse(.ok, "+FLAGS completed"))
        harness.send("a006 logout\r\n")
        #expect(harness.closed)
        #expect(harness.session.state == .logout)
        transcript += harness.take()
        return transcript
    }

    @Test("RFC 3501 §8's sample session, whole and byte by byte")
    func sampleSession() {
        let transcript = Self.sampleSession(byteByByte: false)
        let capabilities =
            "IMAP4rev1 IMAP4rev2 LITERAL- ENABLE IDLE ID SASL-IR NAMESPACE UNSELECT UIDPLUS MOVE ESEARCH"
            + " SPECIAL-USE CREATE-SPECIAL-USE LIST-EXTENDED LIST-STATUS STATUS=SIZE SORT SORT=DISPLAY ESORT THREAD=ORDEREDSUBJECT"
        #expect(
            transcript == """
                * OK [CAPABILITY \(capabilities) AUTH=PLAIN AUTH=LOGIN] Postern IMAP ready\r
                a001 OK [CAPABILITY \(capabilities)] Signed in\r
                * 18 EXISTS\r
                * FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)\r
                * 2 RECENT\r
                * OK [UNSEEN 17] Message 17 is the first unseen message\r
                * OK [UIDVALIDITY 3857529045] UIDs valid\r
                a002 OK [READ-WRITE] SELECT completed\r
                * 12 FETCH (FLAGS (\\Seen) INTERNALDATE "17-Jul-1996 02:44:25 -0700" RFC822.SIZE 4286 ENVELOPE \
                ("Wed, 17 Jul 1996 02:23:25 -0700 (PDT)" "IMAP4rev1 WG mtg summary and minutes" \
                (("Terry Gray" NIL "gray" "cac.washington.edu")) (("Terry Gray" NIL "gray" "cac.washington.edu")) \
                (("Terry Gray" NIL "gray" "cac.washington.edu")) ((NIL NIL "imap" "cac.washington.edu")) \
                ((NIL NIL "minutes" "CNRI.Reston.VA.US")("John Klensin" NIL "KLENSIN" "MIT.EDU")) NIL NIL \
                "<B27397-0100000@cac.washington.edu>") BODY ("TEXT" "PLAIN" ("CHARSET" "US-ASCII") NIL NIL "7BIT" \
                3028 92))\r
                a003 OK FETCH completed\r
                * 12 FETCH (BODY[HEADER] {47}\r
                Date: Wed, 17 Jul 1996 02:23:25 -0700 (PDT)\r
                \r
                )\r
                a004 OK FETCH completed\r
                * 12 FETCH (FLAGS (\\Seen \\Deleted))\r
                a005 OK +FLAGS completed\r
                * BYE Logging out\r
                a006 OK LOGOUT completed\r

                """)
        #expect(Self.sampleSession(byteByByte: true) == transcript)
    }

    @Test("Before TLS: LOGINDISABLED and STARTTLS offered, LOGIN and AUTHENTICATE refused [PRIVACYREQUIRED]")
    func plaintextRefused() {
        var harness = IMAPSessionHarness { $0.startTLSAvailable = true }
        #expect(harness.take().hasSuffix(" ESORT THREAD=ORDEREDSUBJECT STARTTLS LOGINDISABLED] Postern IMAP ready\r\n"))
        harness.send("a LOGIN fred secret\r\nb AUTHENTICATE PLAIN AGZyZWQAc2VjcmV0\r\n")
        #expect(
            harness.take()
                == "a NO [PRIVACYREQUIRED] Sign in only after STARTTLS\r\n"
                    + "b NO [PRIVACYREQUIRED] Sign in only after STARTTLS\r\n"
        )
        #expect(harness.takeRequests().isEmpty)
    }

    @Test("STARTTLS: OK, input pipelined after it dropped, then commands again under TLS with AUTH= offered")
    func startTLS() {
        var harness = IMAPSessionHarness { $0.startTLSAvailable = true }
        _ = harness.take()
        harness.send("t1 STARTTLS\r\nt2 LOGIN injected command\r\n")
        #expect(harness.take() == "t1 OK Begin TLS negotiation now\r\n")
        #expect(harness.takeRequests() == [.startTLS])
        harness.send("t3 NOOP\r\n")  // plaintext before the handshake ends: not read
        #expect(harness.take() == "")
        var actions: [IMAPSession.Action] = []
        harness.session.tlsEstablished(now: 0, into: &actions)
        harness.apply(actions)
        #expect(harness.session.isSecure)
        harness.send("t4 CAPABILITY\r\nt5 STARTTLS\r\n")
        let answer = harness.take()
        #expect(answer.contains("AUTH=PLAIN AUTH=LOGIN\r\nt4 OK"))
        #expect(!answer.contains("STARTTLS\r\n") && !answer.contains("LOGINDISABLED"))
        #expect(answer.hasSuffix("t5 BAD TLS is already active\r\n"))
        #expect(harness.takeRequests().isEmpty)
        var plain = IMAPSessionHarness()
        plain.send("t STARTTLS\r\n")
        #expect(plain.take().hasSuffix("t NO [UNAVAILABLE] TLS is not available\r\n"))
    }

    @Test("AUTHENTICATE: SASL-IR, an empty first challenge, the driver's challenges, cancel, bad base64, CANNOT")
    func authenticate() {
        var harness = IMAPSessionHarness.loopback()
        _ = harness.take()
        harness.send("a AUTHENTICATE XOAUTH9\r\n")
        #expect(harness.take() == "a NO [CANNOT] Unsupported authentication mechanism\r\n")
        harness.send("b AUTHENTICATE LOGIN\r\n")
        #expect(harness.take() == "+ \r\n")
        harness.send("ZnJlZA==\r\n")
        #expect(
            harness.takeRequests() == [
                .authenticate(SASLStep(mechanism: "LOGIN", response: SASLMessage(base64: "ZnJlZA=="), isFirst: false))
            ])
        harness.authenticated(.challenge(SASLMessage(base64: "UGFzc3dvcmQ6")))
        #expect(harness.take() == "+ UGFzc3dvcmQ6\r\n")
        harness.send("*\r\n")
        #expect(harness.take() == "b BAD AUTHENTICATE cancelled\r\n")
        harness.send("c AUTHENTICATE PLAIN\r\nnot base64!\r\n")
        #expect(harness.take() == "+ \r\nc BAD AUTHENTICATE response is not base64\r\n")
        harness.send("d AUTHENTICATE PLAIN AGZyZWQAc2VjcmV0\r\n")
        #expect(
            harness.takeRequests() == [
                .authenticate(
                    SASLStep(mechanism: "PLAIN", response: SASLMessage(base64: "AGZyZWQAc2VjcmV0"), isFirst: true))
            ])
        harness.authenticated(.succeeded(user: "fred"))
        #expect(harness.take().hasPrefix("d OK [CAPABILITY IMAP4rev1 "))
        #expect(harness.session.state == .authenticated)
        #expect(harness.session.user == "fred")
    }

    @Test("A refused sign-in: NO [AUTHENTICATIONFAILED], and OAUTHBEARER's error challenge answered before the NO")
    func failedSignIn() {
        var harness = IMAPSessionHarness {
            $0.allowsPlaintextAuthentication = true
            $0.mechanisms = ["OAUTHBEARER"]
        }
        _ = harness.take()
        harness.send("a LOGIN fred wrong\r\n")
        harness.authenticated(.failed(.authenticationFailed))
        #expect(harness.take() == "a NO [AUTHENTICATIONFAILED] Authentication failed\r\n")
        harness.send("b AUTHENTICATE OAUTHBEARER bixhPWZyZWQsAWF1dGg9QmVhcmVyIHgBAQ==\r\n")
        harness.authenticated(
            .failed(.authenticationFailed, errorChallenge: SASLMessage(base64: "eyJzdGF0dXMiOiJpbnZhbGlkX3Rva2VuIn0=")))
        #expect(harness.take() == "+ eyJzdGF0dXMiOiJpbnZhbGlkX3Rva2VuIn0=\r\n")
        harness.send("AQ==\r\n")
        #expect(harness.take() == "b NO [AUTHENTICATIONFAILED] Authentication failed\r\n")
        #expect(harness.session.state == .notAuthenticated)
    }

    @Test("States: commands out of their state get BAD, unknown commands BAD before and after sign-in")
    func wrongState() {
        var harness = IMAPSessionHarness.loopback()
        _ = harness.take()
        harness.send("a SELECT INBOX\r\nb FETCH 1 FLAGS\r\nc FROB\r\nd NOOP\r\n")
        #expect(
            harness.take() == "a BAD Command not allowed in this state\r\nb BAD Command not allowed in this state\r\n"
                + "c BAD Unknown command\r\nd OK NOOP completed\r\n")
        harness.signIn()
        harness.send("e FETCH 1:* FLAGS\r\nf LOGIN x y\r\ng FROB\r\n")
        #expect(
            harness.take() == "e BAD Command not allowed in this state\r\nf BAD Command not allowed in this state\r\n"
                + "g BAD Unknown command\r\n")
        #expect(harness.takeRequests().isEmpty)
        harness.send("\r\n")
        #expect(harness.take() == "* BAD Empty command line\r\n")
    }

    @Test("SELECT, EXAMINE, CLOSE: the driver's answer moves the state; selecting while selected says [CLOSED]")
    func selection() {
        var harness = IMAPSessionHarness.loopback()
        harness.select()
        harness.send("a EXAMINE Sent\r\n")
        #expect(harness.take() == "* OK [CLOSED] Previous mailbox closed\r\n")
        #expect(
            harness.takeRequests() == [
                .run(IMAPCommand(tag: "a", kind: .examine(IMAPMailboxName("Sent"))), selection: nil)
            ])
        harness.complete([], IMAPStatusResponse(.ok, code: .readOnly, "EXAMINE completed"))
        #expect(harness.session.selection == IMAPSelection(mailbox: IMAPMailboxName("Sent"), readOnly: true))
        harness.send("b SELECT Nowhere\r\n")
        harness.complete([], IMAPStatusResponse(.no, code: .nonExistent, "No such mailbox"))
        #expect(harness.take().hasSuffix("b NO [NONEXISTENT] No such mailbox\r\n"))
        #expect(harness.session.state == .authenticated && harness.session.selection == nil)
        harness.send("c SELECT INBOX\r\n")
        harness.complete([], IMAPStatusResponse(.ok, code: .readWrite, "SELECT completed"))
        harness.send("d CLOSE\r\n")
        harness.complete([], IMAPStatusResponse(.ok, "CLOSE completed"))
        #expect(harness.session.state == .authenticated)
    }

    @Test("ENABLE IMAP4rev2 is answered ENABLED once, and strings are then quoted UTF-8")
    func enable() {
        var harness = IMAPSessionHarness.loopback()
        harness.signIn()
        harness.send("a ENABLE IMAP4rev2 CONDSTORE\r\nb ENABLE IMAP4rev2\r\n")
        #expect(
            harness.take() == "* ENABLED IMAP4rev2\r\na OK ENABLE completed\r\n* ENABLED\r\nb OK ENABLE completed\r\n")
        #expect(harness.session.enabled == ["IMAP4REV2"])
        harness.send("c STATUS INBOX (MESSAGES)\r\n")
        harness.complete(
            [.list(IMAPListItem(attributes: [], delimiter: "/", name: IMAPMailboxName("Entwürfe")))],
            IMAPStatusResponse(.ok, "done"))
        #expect(harness.take() == "* LIST () \"/\" \"Entwürfe\"\r\nc OK done\r\n")
    }

    @Test("The literal extension follows the limits: LITERAL+ when a non-synchronizing literal may be any size")
    func literalCapability() {
        var harness = IMAPSessionHarness {
            $0.limits.maxNonSynchronizingLiteralBytes = $0.limits.maxLiteralBytes
            $0.extensions = ["IDLE"]
        }
        #expect(
            harness.take()
                == "* OK [CAPABILITY IMAP4rev1 IMAP4rev2 LITERAL+ IDLE LOGINDISABLED] " + "Postern IMAP ready\r\n")
        harness.send("a LOGIN {5000+}\r\n" + String(repeating: "x", count: 5000) + " y\r\n")
        #expect(harness.take() == "a NO [PRIVACYREQUIRED] Sign in only after STARTTLS\r\n")
    }
}

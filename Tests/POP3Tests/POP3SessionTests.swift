import SASL
import Testing

@testable import POP3

@Suite("POP3 session machine")
struct POP3SessionTests {
    static let messages = [
        POP3Message(uid: "whqtswO00WBw418f9t5JxYwZ", size: 120), POP3Message(uid: "QhdPYR:00WBw1Ph7x7", size: 200),
    ]

    /// RFC 1939 §10's example session, signed in with USER and PASS rather than APOP.
    static func exampleSession(byteByByte: Bool) -> String {
        var harness = POP3SessionHarness.loopback(byteByByte: byteByByte)
        harness.send("USER mrose\r\nPASS tanstaaf\r\n")
        #expect(harness.takeRequests() == [.login(username: "mrose", password: "tanstaaf")])
        harness.authenticated(.succeeded(user: "mrose", maildrop: messages))
        harness.send("STAT\r\nLIST\r\nRETR 1\r\n")
        #expect(harness.takeRequests() == [.retrieve(messages[0])])
        harness.retrieved("Subject: one\r\n\r\n.hidden dot\r\nend\r\n")
        harness.send("DELE 1\r\nRETR 2\r\n")
        harness.retrieved("Subject: two\n\nbare LF lines\nno final newline")
        harness.send("DELE 2\r\nQUIT\r\n")
        #expect(harness.session.state == .update)
        #expect(harness.takeRequests() == [.retrieve(messages[1]), .commitDeletions(messages)])
        harness.committed(true)
        #expect(harness.closed)
        return harness.take()
    }

    @Test("RFC 1939 §10's example session, whole and byte by byte; RETR dot-stuffs and ends lines in CRLF")
    func exampleSession() {
        let transcript = Self.exampleSession(byteByByte: false)
        #expect(
            transcript == """
                +OK Postern POP3 ready\r
                +OK Send PASS\r
                +OK Maildrop has 2 messages (320 octets)\r
                +OK 2 320\r
                +OK 2 messages (320 octets)\r
                1 120\r
                2 200\r
                .\r
                +OK 34 octets\r
                Subject: one\r
                \r
                ..hidden dot\r
                end\r
                .\r
                +OK Message 1 deleted\r
                +OK 44 octets\r
                Subject: two\r
                \r
                bare LF lines\r
                no final newline\r
                .\r
                +OK Message 2 deleted\r
                +OK Postern POP3 signing off (2 messages deleted)\r

                """)
        #expect(Self.exampleSession(byteByByte: true) == transcript)
    }

    @Test("CAPA before and after sign-in; USER and SASL only where plaintext is allowed; STLS when offered")
    func capabilities() {
        var harness = POP3SessionHarness { $0.startTLSAvailable = true }
        _ = harness.take()
        harness.send("CAPA\r\n")
        #expect(
            harness.take()
                == "+OK Capability list follows\r\nTOP\r\nUIDL\r\nRESP-CODES\r\nAUTH-RESP-CODE\r\nPIPELINING\r\n"
                    + "STLS\r\nIMPLEMENTATION Postern\r\n.\r\n"
        )
        harness.send("USER mrose\r\nAUTH PLAIN AGZyZWQAc2VjcmV0\r\n")
        #expect(harness.take() == "-ERR Sign in only after STLS\r\n-ERR Sign in only after STLS\r\n")
        harness.send("STLS\r\nUSER injected\r\n")
        #expect(harness.take() == "+OK Begin TLS negotiation\r\n")
        #expect(harness.takeRequests() == [.startTLS])
        var actions: [POP3Session.Action] = []
        harness.session.tlsEstablished(now: 0, into: &actions)
        harness.send("CAPA\r\nSTLS\r\n")
        #expect(
            harness.take()
                == "+OK Capability list follows\r\nTOP\r\nUIDL\r\nRESP-CODES\r\nAUTH-RESP-CODE\r\nPIPELINING\r\n"
                    + "USER\r\nSASL PLAIN LOGIN\r\nIMPLEMENTATION Postern\r\n.\r\n-ERR TLS is already active\r\n"
        )
        harness.signIn([])
        harness.send("CAPA\r\n")
        #expect(
            harness.take()
                == "+OK Capability list follows\r\nTOP\r\nUIDL\r\nRESP-CODES\r\nAUTH-RESP-CODE\r\nPIPELINING\r\n"
                    + "IMPLEMENTATION Postern\r\n.\r\n"
        )
    }

    @Test("UIDL, LIST n, TOP, DELE then RSET keeps every message, and numbers stay fixed")
    func transaction() {
        var harness = POP3SessionHarness.loopback()
        harness.signIn(Self.messages)
        harness.send(
            "UIDL\r\nUIDL 2\r\nLIST 3\r\nDELE 1\r\nDELE 1\r\nLIST\r\nSTAT\r\nRETR 1\r\nRSET\r\nLIST 1\r\nNOOP\r\n")
        #expect(
            harness.take() == """
                +OK Unique-ID listing follows\r
                1 whqtswO00WBw418f9t5JxYwZ\r
                2 QhdPYR:00WBw1Ph7x7\r
                .\r
                +OK 2 QhdPYR:00WBw1Ph7x7\r
                -ERR No such message\r
                +OK Message 1 deleted\r
                -ERR Message 1 already deleted\r
                +OK 1 messages (200 octets)\r
                2 200\r
                .\r
                +OK 1 200\r
                -ERR No such message\r
                +OK Maildrop has 2 messages (320 octets)\r
                +OK 1 120\r
                +OK\r

                """)
        harness.send("TOP 1 1\r\n")
        harness.retrieved("From: a\r\nSubject: b\r\n\r\nline 1\r\nline 2\r\n")
        harness.send("TOP 2 0\r\n")
        harness.retrieved("From: a\n\nbody\n")
        #expect(
            harness.take() == "+OK Top of message follows\r\nFrom: a\r\nSubject: b\r\n\r\nline 1\r\n.\r\n"
                + "+OK Top of message follows\r\nFrom: a\r\n\r\n.\r\n")
        harness.send("QUIT\r\n")
        #expect(harness.take() == "+OK Postern POP3 signing off\r\n")
        #expect(harness.takeRequests() == [.retrieve(Self.messages[0]), .retrieve(Self.messages[1])])
        #expect(harness.closed)
    }

    @Test("A message gone under the session, and a removal that fails at QUIT, are answered -ERR [SYS/TEMP]")
    func driverFailures() {
        var harness = POP3SessionHarness.loopback()
        harness.signIn(Self.messages)
        harness.send("RETR 2\r\n")
        harness.retrieved(nil)
        harness.send("DELE 2\r\nQUIT\r\n")
        harness.committed(false)
        #expect(
            harness.take() == "-ERR [SYS/TEMP] Message is no longer available\r\n+OK Message 2 deleted\r\n"
                + "-ERR [SYS/TEMP] Some deleted messages not removed\r\n")
        #expect(harness.closed)
    }

    @Test("AUTH: the list, SASL-IR, a challenge, cancel; failures answered with the driver's code, closed after three")
    func auth() {
        var harness = POP3SessionHarness.loopback()
        _ = harness.take()
        harness.send("AUTH\r\nAUTH CRAM-MD5\r\nAUTH LOGIN\r\n")
        #expect(
            harness.take()
                == "+OK Mechanisms follow\r\nPLAIN\r\nLOGIN\r\n.\r\n-ERR Unsupported authentication mechanism\r\n+ \r\n"
        )
        harness.send("*\r\nAUTH PLAIN\r\nAGZyZWQAd3Jvbmc=\r\n")
        #expect(harness.take() == "-ERR AUTH cancelled\r\n+ \r\n")
        #expect(
            harness.takeRequests() == [
                .authenticate(
                    SASLStep(mechanism: "PLAIN", response: SASLMessage(base64: "AGZyZWQAd3Jvbmc="), isFirst: false))
            ])
        harness.authenticated(.failed(.auth))
        harness.send("USER mrose\r\nPASS x\r\n")
        harness.authenticated(.failed(.inUse))
        harness.send("PASS y\r\nAPOP mrose c4c9334bac560ecc979e58001b3e22fb\r\nAUTH PLAIN AGZyZWQAc2VjcmV0\r\n")
        harness.authenticated(.failed(.auth))
        #expect(
            harness.take()
                == "-ERR [AUTH] Authentication failed\r\n+OK Send PASS\r\n-ERR [IN-USE] Authentication failed\r\n"
                + "-ERR USER first\r\n-ERR APOP not supported\r\n-ERR [AUTH] Authentication failed\r\n")
        #expect(harness.closed)
    }

    @Test("AUTH with an OAuth initial response past a command line's limit is read; an error challenge, then -ERR")
    func oauthInitialResponse() {
        var harness = POP3SessionHarness {
            $0.allowsPlaintextAuthentication = true
            $0.mechanisms = ["PLAIN", "OAUTHBEARER"]
        }
        _ = harness.take()
        let token = String(repeating: "QUFB", count: 300)
        harness.send("AUTH oauthbearer \(token)\r\n")
        #expect(
            harness.takeRequests() == [
                .authenticate(SASLStep(mechanism: "OAUTHBEARER", response: SASLMessage(base64: token), isFirst: true))
            ])
        harness.authenticated(.failed(.auth, errorChallenge: SASLMessage(base64: "e30=")))
        #expect(harness.take() == "+ e30=\r\n")
        harness.send("AQ==\r\nNOOP " + String(repeating: "x", count: 600) + "\r\n")
        harness.send("AUTH OAUTHBEARER " + String(repeating: "QUFB", count: 16_400) + "\r\n")
        #expect(
            harness.take() == "-ERR [AUTH] Authentication failed\r\n-ERR Line too long\r\n-ERR Line too long\r\n",
            "the client's answer to the challenge ends it; other commands keep their limit, AUTH the SASL line's")
        #expect(harness.takeRequests().isEmpty)
    }

    @Test("Commands: unknown, out of state, bad arguments, a line too long; 10,000 pipelined each answered")
    func commands() {
        var harness = POP3SessionHarness.loopback()
        _ = harness.take()
        harness.send("XYZZY\r\nSTAT\r\nUSER\r\nLIST x\r\n" + String(repeating: "N", count: 600) + "\r\nNOOP\r\n")
        // Arguments are checked before the state: LIST x is refused for its argument.
        #expect(
            harness.take() == "-ERR Unknown command\r\n-ERR Command not allowed now\r\n-ERR Invalid arguments\r\n"
                + "-ERR Invalid arguments\r\n-ERR Line too long\r\n-ERR Command not allowed now\r\n")
        harness.signIn(Self.messages)
        harness.send("RETR 0\r\nTOP 1\r\nDELE 9\r\nUSER x\r\nLIST 1 2\r\n")
        #expect(
            harness.take() == "-ERR Invalid arguments\r\n-ERR Invalid arguments\r\n-ERR No such message\r\n"
                + "-ERR Command not allowed now\r\n-ERR Invalid arguments\r\n")
        harness.send(String(repeating: "NOOP\r\n", count: 10_000))
        #expect(harness.take() == String(repeating: "+OK\r\n", count: 10_000))
    }

    @Test("A silent client is disconnected after 10 minutes with no response and nothing removed")
    func autologout() {
        var harness = POP3SessionHarness.loopback()
        harness.signIn(Self.messages)
        harness.send("DELE 1\r\n", now: 60_000_000_000)
        _ = harness.take()
        let deadline = 60_000_000_000 + 600_000_000_000 as UInt64
        #expect(harness.session.deadline == deadline)
        var actions: [POP3Session.Action] = []
        harness.session.timerFired(now: deadline - 1, into: &actions)
        #expect(actions.isEmpty)
        harness.session.timerFired(now: deadline, into: &actions)
        #expect(actions == [.closeConnection])
        #expect(harness.takeRequests().isEmpty)
    }
}

import Base64Coding
import Testing

@testable import SASL

/// The one decoder of PLAIN (RFC 4616) and LOGIN that IMAP, POP3 and SMTP share, fed one client message at a time.
@Suite("SASL PLAIN and LOGIN")
struct PasswordSASLTests {
    static func message(_ text: String) -> SASLMessage {
        SASLMessage(base64: Base64.encode(Array(text.utf8)))
    }

    static func first(_ mechanism: String, _ text: String?) -> PasswordSASL.Step {
        var sasl = PasswordSASL()
        return sasl.step(SASLStep(mechanism: mechanism, response: text.map(message) ?? SASLMessage(base64: ""), isFirst: true))
    }

    @Test("RFC 4616's examples and the shapes around them", arguments: [
        ("\0tim\0tanstaaftanstaaf", PasswordSASL.Step.credentials(username: "tim", password: "tanstaaftanstaaf")),
        ("tim\0tim\0tanstaaf", .credentials(username: "tim", password: "tanstaaf")),
        ("Ursel\0Kurt\0xipj3plmq", .otherAuthorization),
        ("\0tim", .malformed),
        ("\0tim\0", .malformed),
        ("\0\0secret", .malformed),
        ("\0tim\0sec\0ret", .malformed),
        ("\0j\u{F6}rg\0p\u{E4}ss", .credentials(username: "j\u{F6}rg", password: "p\u{E4}ss")),
    ])
    func plain(_ text: String, _ expected: PasswordSASL.Step) {
        #expect(Self.first("PLAIN", text) == expected)
    }

    @Test("PLAIN that is not UTF-8, or not base64, is malformed")
    func plainBytes() {
        var sasl = PasswordSASL()
        let latin1 = SASLMessage(base64: Base64.encode([0, 0x6A, 0xF6, 0x72, 0x67, 0, 0x70]))
        #expect(sasl.step(SASLStep(mechanism: "PLAIN", response: latin1, isFirst: true)) == .malformed)
        #expect(sasl.step(SASLStep(mechanism: "PLAIN", response: SASLMessage(base64: "AAAA="), isFirst: true)) == .malformed)
    }

    @Test("PLAIN without an initial response asks for it with the empty challenge, then takes it")
    func plainChallenge() {
        var sasl = PasswordSASL()
        #expect(sasl.step(SASLStep(mechanism: "PLAIN", response: SASLMessage(base64: ""), isFirst: true))
            == .challenge(SASLMessage(base64: "")))
        #expect(sasl.step(SASLStep(mechanism: "PLAIN", response: Self.message("\0u\0p"), isFirst: false))
            == .credentials(username: "u", password: "p"))
    }

    @Test("LOGIN asks Username: then Password: (with or without an initial response), and starts afresh")
    func login() {
        var sasl = PasswordSASL()
        #expect(sasl.step(SASLStep(mechanism: "LOGIN", response: SASLMessage(base64: ""), isFirst: true))
            == .challenge(SASLMessage(base64: "VXNlcm5hbWU6")))
        #expect(sasl.step(SASLStep(mechanism: "LOGIN", response: Self.message("ann"), isFirst: false))
            == .challenge(SASLMessage(base64: "UGFzc3dvcmQ6")))
        #expect(sasl.step(SASLStep(mechanism: "LOGIN", response: Self.message("pw"), isFirst: false))
            == .credentials(username: "ann", password: "pw"))
        // An initial response is the user name; a new exchange forgets a user left waiting.
        #expect(sasl.step(SASLStep(mechanism: "LOGIN", response: Self.message("bob"), isFirst: true))
            == .challenge(SASLMessage(base64: "UGFzc3dvcmQ6")))
        #expect(sasl.step(SASLStep(mechanism: "LOGIN", response: Self.message("cy"), isFirst: true))
            == .challenge(SASLMessage(base64: "UGFzc3dvcmQ6")))
        #expect(sasl.step(SASLStep(mechanism: "LOGIN", response: Self.message("pw2"), isFirst: false))
            == .credentials(username: "cy", password: "pw2"))
    }

    @Test("A mechanism it does not run is unsupported")
    func unsupported() {
        #expect(Self.first("CRAM-MD5", "x") == .unsupported)
        #expect(PasswordSASL.mechanisms == ["PLAIN", "LOGIN"])
    }

    @Test("A line is a message when it is base64 or =, fed whole", arguments: [
        ("=", ""), ("AHUAcA==", "AHUAcA=="), ("AHUAcA", nil), ("AHU!cA==", nil), ("", nil), ("A===", nil),
    ] as [(String, String?)])
    func lines(_ line: String, _ base64: String?) {
        #expect(SASLMessage(line: Array(line.utf8))?.base64 == base64)
    }
}

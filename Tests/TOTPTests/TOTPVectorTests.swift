import Testing

import TOTP

@Suite("HOTP and TOTP known answers (RFC 4226 Appendix D, RFC 6238 Appendix B)")
struct TOTPVectorTests {
    static let secret = Array("12345678901234567890".utf8)

    @Test("HOTP-SHA1, 6 digits, counters 0 to 9")
    func hotp() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        for (counter, code) in expected.enumerated() {
            #expect(HOTP.code(secret: Self.secret, counter: UInt64(counter), digits: 6) == code, "counter \(counter)")
        }
    }

    @Test("TOTP-SHA1, 8 digits, 30 s steps, the six times of Appendix B")
    func totp() {
        let expected: [(Int64, String)] = [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
        var totp = TOTP()
        totp.digits = 8
        for (time, code) in expected {
            #expect(totp.code(secret: Self.secret, step: totp.step(at: time)) == code, "T = \(time)")
            #expect(totp.verify(code, secret: Self.secret, now: time, lastStep: nil) == .accepted(step: time / 30))
        }
    }

    @Test("Six digits are the last six of the eight (the truncation is modulo 10^digits)")
    func sixDigits() {
        #expect(TOTP().code(secret: Self.secret, step: 1) == "287082")
        #expect(TOTP().step(at: 59) == 1)
        #expect(TOTP().step(at: 60) == 2)
        #expect(TOTP().step(at: 0) == 0)
    }
}

@Suite("TOTP verification: the window, replay, malformed codes")
struct TOTPVerificationTests {
    let secret = Array("12345678901234567890".utf8)
    let totp = TOTP()
    let now: Int64 = 1_111_111_111  // step 37037037

    @Test("A code of the step before, now or after is accepted with its step; two steps away is wrong")
    func window() {
        let step = totp.step(at: now)
        for offset in [-1, 0, 1] as [Int64] {
            let code = totp.code(secret: secret, step: step + offset)
            #expect(totp.verify(code, secret: secret, now: now, lastStep: nil) == .accepted(step: step + offset))
        }
        for offset in [-2, 2] as [Int64] {
            let code = totp.code(secret: secret, step: step + offset)
            #expect(totp.verify(code, secret: secret, now: now, lastStep: nil) == .wrong)
        }
    }

    @Test("A step accepted once is refused again, and so is every earlier step; a later one still passes")
    func replay() {
        let step = totp.step(at: now)
        let code = totp.code(secret: secret, step: step)
        #expect(totp.verify(code, secret: secret, now: now, lastStep: nil) == .accepted(step: step))
        #expect(totp.verify(code, secret: secret, now: now, lastStep: step) == .replayed)
        #expect(totp.verify(totp.code(secret: secret, step: step - 1), secret: secret, now: now, lastStep: step)
            == .replayed)
        #expect(totp.verify(totp.code(secret: secret, step: step + 1), secret: secret, now: now, lastStep: step)
            == .accepted(step: step + 1))
        // A code accepted from the step after refuses the current step's code too.
        #expect(totp.verify(code, secret: secret, now: now, lastStep: step + 1) == .replayed)
    }

    @Test("Not six digits, letters, another secret's code: wrong; spaces are ignored")
    func malformed() {
        let step = totp.step(at: now)
        let code = totp.code(secret: secret, step: step)
        #expect(totp.verify(String(code.dropLast()), secret: secret, now: now, lastStep: nil) == .wrong)
        #expect(totp.verify(code + "0", secret: secret, now: now, lastStep: nil) == .wrong)
        #expect(totp.verify("12a456", secret: secret, now: now, lastStep: nil) == .wrong)
        #expect(totp.verify("", secret: secret, now: now, lastStep: nil) == .wrong)
        #expect(totp.verify(code, secret: Array("another secret......".utf8), now: now, lastStep: nil) == .wrong)
        let spaced = String(code.prefix(3)) + " " + String(code.suffix(3))
        #expect(totp.verify(spaced, secret: secret, now: now, lastStep: nil) == .accepted(step: step))
    }
}

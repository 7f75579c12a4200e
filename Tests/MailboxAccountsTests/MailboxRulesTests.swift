import ServerKit
import AuthCrypto
import Testing
import Time

@testable import MailboxAccounts

@Suite("Mailbox rules: addresses, passwords, proof of work, times")
struct MailboxRulesTests {
    @Test("addresses are lower-cased and split at the single @")
    func addressParsing() throws {
        let address = try #require(MailboxAddress("Demo.User_1@Mail.Localhost"))
        #expect(address.local == "demo.user_1")
        #expect(address.domain == "mail.localhost")
        #expect(address.description == "demo.user_1@mail.localhost")
    }

    @Test(
        "malformed addresses are refused",
        arguments: [
            "", "nodomain", "@mail.localhost", "a@", "a@@mail.localhost", "a@b@mail.localhost", ".a@mail.localhost",
            "a.@mail.localhost", "a..b@mail.localhost", "a b@mail.localhost", "ä@mail.localhost", "a+b@mail.localhost",
            String(repeating: "a", count: 65) + "@mail.localhost", "a@mail localhost", "a@mail/localhost",
            // Look-alikes Swift's lowercased() folded onto ASCII (issue 66): KELVIN SIGN in the local part and domain.
            "\u{212A}ate@mail.localhost", "kate@mail.\u{212A}ocalhost", "\u{0130}ris@mail.localhost",
        ])
    func addressRejected(_ text: String) {
        #expect(MailboxAddress(text) == nil)
    }

    @Test("a 64-character local part is the longest accepted")
    func addressLongestLocal() {
        #expect(MailboxAddress(String(repeating: "a", count: 64) + "@mail.localhost") != nil)
    }

    @Test("passwords: 6 characters minimum, 4 KiB maximum, checked before hashing")
    func passwordPolicy() throws {
        #expect(throws: MailboxError.passwordTooShort) { try PasswordPolicy.validateNew("12345") }
        #expect(throws: MailboxError.passwordTooShort) { try PasswordPolicy.validateNew("") }
        try PasswordPolicy.validateNew("123456")
        try PasswordPolicy.validateNew("ééééé€")
        try PasswordPolicy.validateNew(String(repeating: "x", count: 4096))
        #expect(throws: MailboxError.passwordTooLong) {
            try PasswordPolicy.validateNew(String(repeating: "x", count: 4097))
        }
        #expect(PasswordPolicy.isPlausible("x"))
        #expect(!PasswordPolicy.isPlausible(""))
        #expect(!PasswordPolicy.isPlausible(String(repeating: "x", count: 4097)))
    }

    @Test("leading zero bits count from the most significant bit of the first byte")
    func leadingZeroBits() {
        #expect(ProofOfWork.leadingZeroBits([0x80]) == 0)
        #expect(ProofOfWork.leadingZeroBits([0x01]) == 7)
        #expect(ProofOfWork.leadingZeroBits([0x00, 0x00, 0x0F]) == 20)
        #expect(ProofOfWork.leadingZeroBits([0x00, 0x00]) == 16)
        #expect(ProofOfWork.leadingZeroBits([]) == 0)
    }

    @Test("a proof is SHA-256 of the salt text followed by the nonce text")
    func proofDigest() {
        let salt = "ab"
        let nonce = "cd"
        #expect(ProofOfWork.digest(salt: salt, nonce: nonce) == SHA256.hash(Array("abcd".utf8)))
        let solved = ProofOfWork.solve(salt: "00ff", difficulty: 8)
        #expect(ProofOfWork.digest(salt: "00ff", nonce: solved).first == 0)
        #expect(ProofOfWork.isValid(salt: "00ff", nonce: solved, difficulty: 8))
        #expect(ProofOfWork.isValid(salt: "00ff", nonce: "anything", difficulty: 0))
        let counted = ProofOfWork.leadingZeroBits(ProofOfWork.digest(salt: "00ff", nonce: solved))
        #expect(!ProofOfWork.isValid(salt: "00ff", nonce: solved, difficulty: counted + 1))
    }

    @Test("nonces are 1 to 64 printable ASCII characters")
    func nonceShape() {
        #expect(ProofOfWork.isWellFormedNonce("0"))
        #expect(ProofOfWork.isWellFormedNonce(" ~"))
        #expect(ProofOfWork.isWellFormedNonce(String(repeating: "9", count: 64)))
        #expect(!ProofOfWork.isWellFormedNonce(""))
        #expect(!ProofOfWork.isWellFormedNonce(String(repeating: "9", count: 65)))
        #expect(!ProofOfWork.isWellFormedNonce("a\tb"))
        #expect(!ProofOfWork.isWellFormedNonce("é"))
        #expect(!ProofOfWork.isValid(salt: "00", nonce: "", difficulty: 0))
    }

    @Test("RFC 3339 UTC times")
    func rfc3339() {
        #expect(RFC3339.format(0) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.format(1_736_937_000) == "2025-01-15T10:30:00Z")
        #expect(RFC3339.format(951_825_600) == "2000-02-29T12:00:00Z")
        #expect(RFC3339.format(4_102_444_799) == "2099-12-31T23:59:59Z")
    }

    @Test("minted UUIDs are version 4 and domain ids are stable")
    func identifiers() {
        let id = MailboxIdentifiers.uuid()
        #expect(MailboxIdentifiers.isUUID(id))
        #expect(Array(id)[14] == "4")
        #expect(id != MailboxIdentifiers.uuid())
        #expect(MailboxIdentifiers.domainID("mail.localhost") == MailboxIdentifiers.domainID("mail.localhost"))
        #expect(MailboxIdentifiers.domainID("mail.localhost") != MailboxIdentifiers.domainID("pro.localhost"))
        #expect(MailboxIdentifiers.isUUID(MailboxIdentifiers.domainID("mail.localhost")))
        #expect(!MailboxIdentifiers.isUUID("not-a-uuid"))
        #expect(!MailboxIdentifiers.isUUID(id.uppercased()))
    }
}

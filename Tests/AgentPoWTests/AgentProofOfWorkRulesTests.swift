import Testing

import AgentPoW
import AuthCrypto

@Suite("Proof-of-work rules")
struct AgentProofOfWorkRulesTests {
    @Test("Leading zero bits, most significant bit first")
    func leadingZeroBits() {
        #expect(AgentProofOfWork.leadingZeroBits([0x80]) == 0)
        #expect(AgentProofOfWork.leadingZeroBits([0x0e, 0x36]) == 4)
        #expect(AgentProofOfWork.leadingZeroBits([0x00, 0x4f]) == 9)
        #expect(AgentProofOfWork.leadingZeroBits([0x00, 0x00]) == 16)
        #expect(AgentProofOfWork.meets(difficulty: 4, [0x0e]))
        #expect(!AgentProofOfWork.meets(difficulty: 5, [0x0e]))
        #expect(AgentProofOfWork.meets(difficulty: 0, [0xff]))
    }

    @Test("powHex must be exactly 128 hex characters")
    func powHex() {
        let good = String(repeating: "0a", count: 64)
        #expect(AgentProofOfWork.decodePowHex(good) == Array(repeating: 0x0a, count: 64))
        #expect(AgentProofOfWork.decodePowHex(good.uppercased()) == Array(repeating: 0x0a, count: 64))
        #expect(AgentProofOfWork.decodePowHex(String(good.dropLast())) == nil)
        #expect(AgentProofOfWork.decodePowHex(good + "00") == nil)
        #expect(AgentProofOfWork.decodePowHex(String(good.dropLast()) + "g") == nil)
        #expect(AgentProofOfWork.decodePowHex("") == nil)
        #expect(Hex.encode([0x00, 0x4f, 0xab]) == "004fab")
    }

    @Test("Nonces are 1 to 20 decimal digits")
    func nonces() {
        #expect(AgentProofOfWork.isValidNonce("0"))
        #expect(AgentProofOfWork.isValidNonce("51"))
        #expect(AgentProofOfWork.isValidNonce("18446744073709551615"))
        #expect(!AgentProofOfWork.isValidNonce(""))
        #expect(!AgentProofOfWork.isValidNonce("-1"))
        #expect(!AgentProofOfWork.isValidNonce("1.5"))
        #expect(!AgentProofOfWork.isValidNonce(" 1"))
        #expect(!AgentProofOfWork.isValidNonce("123456789012345678901"))
        #expect(AgentProofOfWork.password(challenge: "fixture-beta", nonce: "51") == Array("fixture-beta:51".utf8))
    }
}

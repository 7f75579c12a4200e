import Testing

import AgentPoW
import AuthCrypto

@Suite("Agent proof-of-work vectors (CONTRACT.md 1.2)")
struct AgentPoWVectorTests {
    static let vectors: [(challenge: String, difficulty: Int, nonce: UInt64, prefix: String)] = [
        ("fixture-alpha", 4, 4, "0e365cf9d7a9a9d515b5362da1ed60b3"),
        ("fixture-beta", 6, 51, "0326f14661b1f70377aafd19280fcf8f"),
        ("fixture-gamma", 8, 80, "004f0f2b137a745d72ff9ba1cacda12d"),
    ]

    @Test("scrypt over \"<challenge>:<nonce>\" with the salt text gives the known outputs")
    func digests() throws {
        for vector in Self.vectors {
            let digest = try AgentProofOfWork.digest(
                challenge: vector.challenge, nonce: String(vector.nonce), salt: AgentProofOfWork.defaultSalt)
            #expect(digest.count == 64)
            #expect(Hex.encode(digest).hasPrefix(vector.prefix), "\(vector.challenge)")
            #expect(AgentProofOfWork.meets(difficulty: vector.difficulty, digest))
        }
    }

    @Test("The salt is the UTF-8 text, not the decoded hex")
    func saltIsText() throws {
        let decodedSalt = String(decoding: [0x0b, 0x98, 0x07, 0x34], as: UTF8.self)
        let digest = try AgentProofOfWork.digest(challenge: "fixture-alpha", nonce: "4", salt: decodedSalt)
        #expect(!Hex.encode(digest).hasPrefix("0e365cf9d7a9a9d515b5362da1ed60b3"))
    }
}

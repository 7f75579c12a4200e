import AuthCrypto
import JSON
import JWT
import Testing

/// A small deterministic generator, so that a failure reproduces.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Robustness against mutated and random input")
struct RobustnessTests {
    @Test("every single-character change, insertion or deletion of a valid token is refused", arguments: purposeAlgorithms)
    func mutations(algorithm: JWTAlgorithm) throws {
        let set = try makeKeySet()
        let purpose = purpose(signedWith: algorithm)
        let token = Array(try set.sign(claims(purpose: purpose), for: purpose).utf8)
        #expect(try set.verify(String(decoding: token, as: UTF8.self), policy: policy(purpose), now: now).pur != nil)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ".utf8)
        var random = SplitMix64(state: UInt64(JWTAlgorithm.allCases.firstIndex(of: algorithm)! + 1))
        var accepted = 0
        for _ in 0..<600 {
            var mutated = token
            let position = Int.random(in: 0..<mutated.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                let replacement = alphabet.randomElement(using: &random)!
                if replacement == mutated[position] { continue }
                mutated[position] = replacement
            case 1: mutated.insert(alphabet.randomElement(using: &random)!, at: position)
            default: mutated.remove(at: position)
            }
            if (try? set.verify(String(decoding: mutated, as: UTF8.self), policy: policy(purpose), now: now)) != nil {
                accepted += 1
            }
        }
        #expect(accepted == 0)
    }

    @Test("random bytes and random dot-separated base64url never verify and never crash")
    func randomTokens() throws {
        let set = try makeKeySet()
        var random = SplitMix64(state: 42)
        for round in 0..<2000 {
            let length = Int.random(in: 0..<(round % 10 == 0 ? 10_000 : 300), using: &random)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            if round % 2 == 0 {
                let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_..".utf8)
                bytes = bytes.map { alphabet[Int($0) % alphabet.count] }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(throws: JWTError.self) { try set.verify(text, policy: policy(), now: now) }
        }
    }

    @Test("the JSON parser survives random and truncated input")
    func jsonFuzz() throws {
        var random = SplitMix64(state: 7)
        let sample = Array(#"{"a":[1,-2.5e3,true,false,null,"x\u00e9\n"],"b":{"c":{}},"d":[]}"#.utf8)
        #expect(try JSONValue.parse(sample)["b"]?["c"] == .object([]))
        for cut in 0..<sample.count {
            #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array(sample[0..<cut])) }
        }
        let pieces = Array(#"{}[],:"\-0123456789.eEtrufalsn "#.utf8)
        for _ in 0..<5000 {
            let length = Int.random(in: 0..<40, using: &random)
            let bytes = (0..<length).map { _ in pieces.randomElement(using: &random)! }
            if let value = try? JSONValue.parse(bytes) {
                // Whatever parses must serialize to something that parses to the same value.
                #expect(try JSONValue.parse(value.serialize()) == value)
            }
        }
    }
}

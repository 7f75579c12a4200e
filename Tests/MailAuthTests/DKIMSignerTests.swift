import AuthCrypto
import Foundation
import Testing

@testable import MailAuth

/// DKIM signing: RFC 8463's worked example reproduced (known answers for Ed25519 and RSA), the signer's own fields
/// verified by this package's verifier and by dkimpy, and what oversigning and the clock do.
@Suite("DKIM signing")
struct DKIMSignerTests {
    static let time: Int64 = 1_795_602_199

    static let message = Array(
        [
            "From: Agent Smith <smith@agents.example>",
            "To: bob@example.org",
            "Cc: carol@example.org",
            "Subject:  A  long   subject that is folded",
            "\tover two lines",
            "Date: Wed, 25 Nov 2026 10:00:00 +0000",
            "Message-ID: <signed-1@agents.example>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "X-Unsigned: anything",
            "",
            "Hello Bob,  ",
            "  this line has   inner   spaces.\t",
            "",
            "Bye.",
            "",
            "",
        ].joined(separator: "\r\n").utf8)

    static let rsa = try! RSAPrivateKey.generate()
    static let ed25519 = try! Ed25519PrivateKey.generate()

    static func signer() -> DKIMSigner {
        DKIMSigner(
            domain: "Agents.Example",
            keys: [
                DKIMSigningKey(selector: "r1", rsa: rsa), DKIMSigningKey(selector: "e1", ed25519: ed25519),
            ], now: { time })
    }

    static func dns(_ signer: DKIMSigner) -> FakeDNS {
        var records: [String: [String]] = [:]
        for key in signer.keys { records[key.txtRecordName(domain: signer.domain)] = [key.txtRecordValue] }
        return FakeDNS(txtRecords: records)
    }

    static func verify(_ message: [UInt8], _ signer: DKIMSigner) async -> [AuthResult] {
        await DKIMVerifier(dns: dns(signer), now: { time }).verify(message).map(\.result)
    }

    @Test("RFC 8463 A.3: the body hash and the Ed25519 signature are the RFC's, byte for byte")
    func ed25519KnownAnswer() throws {
        let key = DKIMSigningKey(selector: "brisbane", ed25519: try Ed25519PrivateKey(seed: RFC8463Example.ed25519Seed))
        #expect(key.txtRecordValue == RFC8463Example.ed25519Record)
        let headers = MessageHeaders(RFC8463Example.message)
        let bodyHash = SHA256.hash(DKIMCanonicalization.relaxed.body(headers.body))
        #expect(Data(bodyHash).base64EncodedString() == RFC8463Example.bodyHash)
        let signature = try DKIMSigner.signature(
            headers: headers, names: RFC8463Example.signedNames,
            unsignedField: Array(RFC8463Example.ed25519Unsigned.utf8), key: key)
        #expect(Data(signature).base64EncodedString() == RFC8463Example.ed25519Signature)
    }

    @Test("RFC 8463 A.3: the RSA-SHA256 signature is the RFC's, byte for byte (its 1024-bit key signed by openssl)")
    func rsaKnownAnswer() throws {
        let key = DKIMSigningKey(
            selector: "test", algorithm: .rsaSHA256, publicKeyBase64: RFC8463Example.rsaPublicKey,
            sign: { (input: [UInt8]) throws(CryptoError) -> [UInt8] in
                do {
                    return try OpenSSLCommand.signSHA256(input, pem: RFC8463Example.rsaPrivateKeyPEM)
                } catch {
                    throw CryptoError(.signingFailed, "openssl: \(error)")
                }
            })
        let signature = try DKIMSigner.signature(
            headers: MessageHeaders(RFC8463Example.message), names: RFC8463Example.signedNames,
            unsignedField: Array(RFC8463Example.rsaUnsigned.utf8), key: key)
        #expect(Data(signature).base64EncodedString() == RFC8463Example.rsaSignature)
    }

    @Test("the RFC 8463 message with both signatures, as printed, passes the verifier")
    func rfcExampleVerifies() async {
        func fold(_ unsigned: String, _ signature: String) -> String {
            unsigned + signature.prefix(40) + "\r\n " + signature.dropFirst(40) + "\r\n"
        }
        let signed =
            Array(
                (fold(RFC8463Example.ed25519Unsigned, RFC8463Example.ed25519Signature)
                    + fold(RFC8463Example.rsaUnsigned, RFC8463Example.rsaSignature)).utf8) + RFC8463Example.message
        let dns = FakeDNS(txtRecords: [
            "brisbane._domainkey.football.example.com": [RFC8463Example.ed25519Record],
            "test._domainkey.football.example.com": ["v=DKIM1; k=rsa; p=" + RFC8463Example.rsaPublicKey],
        ])
        let outcomes = await DKIMVerifier(dns: dns, now: { Self.time }).verify(signed)
        // The RSA key is 1024 bits: the verifier refuses keys under 2048 (RFC 8301), so that one is a permerror.
        #expect(outcomes.map(\.result) == [.pass, .permerror])
    }

    @Test("two fields, RSA then Ed25519, each passing the verifier; t= from the clock; From oversigned")
    func fieldsVerify() async throws {
        let signer = Self.signer()
        let fields = try signer.signatureFields(for: Self.message)
        let lines = fields.components(separatedBy: "\r\n").dropLast()
        #expect(lines.filter { $0.hasPrefix("DKIM-Signature:") }.count == 2)
        #expect(lines.allSatisfy { $0.count <= DKIMSigner.lineLength })
        #expect(lines.allSatisfy { $0.hasPrefix("DKIM-Signature:") || $0.hasPrefix(" ") })
        let unfolded = fields.replacingOccurrences(of: "\r\n ", with: " ")
        #expect(unfolded.contains("a=rsa-sha256; c=relaxed/relaxed; d=agents.example; s=r1; t=1795602199;"))
        #expect(unfolded.contains("a=ed25519-sha256; c=relaxed/relaxed; d=agents.example; s=e1; t=1795602199;"))
        // h= may be folded after a colon (FWS is allowed there).
        #expect(
            fields.replacingOccurrences(of: "\r\n ", with: "").contains(
                "h=from:to:cc:subject:date:message-id:mime-version:content-type:from;"))
        #expect(await Self.verify(Array(fields.utf8) + Self.message, signer) == [.pass, .pass])
        #expect(await Self.verify(try signer.signed(Self.message), signer) == [.pass, .pass])
    }

    @Test("a From added on top, a changed signed field or a changed body fails both; an unsigned field does not")
    func tampering() async throws {
        let signer = Self.signer()
        let signed = String(decoding: try signer.signed(Self.message), as: UTF8.self)
        let fieldsEnd = signed.range(of: "From: Agent")!.lowerBound
        let addedFrom = signed[..<fieldsEnd] + "From: Mallory <m@agents.example>\r\n" + signed[fieldsEnd...]
        #expect(await Self.verify(Array(addedFrom.utf8), signer) == [.fail, .fail])
        let cc = signed.replacingOccurrences(of: "carol@", with: "mallory@")
        #expect(await Self.verify(Array(cc.utf8), signer) == [.fail, .fail])
        let body = signed.replacingOccurrences(of: "Bye.", with: "Buy.")
        #expect(await Self.verify(Array(body.utf8), signer) == [.fail, .fail])
        let unsigned = signed.replacingOccurrences(of: "X-Unsigned: anything", with: "X-Unsigned: else")
        #expect(await Self.verify(Array(unsigned.utf8), signer) == [.pass, .pass])
        // Relaxed canonicalization: whitespace changed in transit keeps both passing.
        let respaced = signed.replacingOccurrences(of: "To: bob@", with: "To:   bob@")
        #expect(await Self.verify(Array(respaced.utf8), signer) == [.pass, .pass])
    }

    @Test("the DNS records: names under _domainkey, k=rsa with the SubjectPublicKeyInfo, k=ed25519 with the raw key")
    func records() throws {
        let signer = Self.signer()
        let rsa = signer.keys[0], ed = signer.keys[1]
        #expect(rsa.txtRecordName(domain: signer.domain) == "r1._domainkey.agents.example")
        #expect(ed.txtRecordName(domain: signer.domain) == "e1._domainkey.agents.example")
        let der = try #require(Data(base64Encoded: rsa.publicKeyBase64))
        let pem = "-----BEGIN PUBLIC KEY-----\n" + der.base64EncodedString(options: .lineLength64Characters)
            + "\n-----END PUBLIC KEY-----\n"
        #expect(try RSAPublicKey(pem: pem).modulus == Self.rsa.publicKey.modulus)
        #expect(rsa.txtRecordValue == "v=DKIM1; k=rsa; p=" + rsa.publicKeyBase64)
        let raw = Data(Self.ed25519.publicKey.rawRepresentation).base64EncodedString()
        #expect(ed.txtRecordValue == "v=DKIM1; k=ed25519; p=" + raw)
    }

    @Test("dkimpy (PyPI) verifies both signatures from the published records")
    func dkimpyVerifies() async throws {
        let signer = Self.signer()
        let signed = try signer.signed(Self.message)
        var records: [String: String] = [:]
        for key in signer.keys { records[key.txtRecordName(domain: signer.domain)] = key.txtRecordValue }
        let verdicts = try DKIMPy.verify(signed, records: records)
        #expect(verdicts == [true, true])
        let text = String(decoding: signed, as: UTF8.self)
        let tampered = Array(text.replacingOccurrences(of: "Bye.", with: "Buy.").utf8)
        #expect(try DKIMPy.verify(tampered, records: records) == [false, false])
    }
}

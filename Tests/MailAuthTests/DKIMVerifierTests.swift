import Testing

@testable import MailAuth

/// DKIM against a dkimpy-signed fixture (known answers), canonicalization against RFC 6376's example, and what
/// makes a signature fail.
@Suite("DKIM")
struct DKIMVerifierTests {
    static let keys = FakeDNS(txtRecords: [
        "rsa1._domainkey.example.com": [DKIMFixture.rsaKeyRecord],
        "ed1._domainkey.example.com": [DKIMFixture.ed25519KeyRecord],
    ])
    static func verifier(_ dns: FakeDNS = keys) -> DKIMVerifier { DKIMVerifier(dns: dns, now: { 1_795_602_199 }) }

    @Test("dkimpy's RSA-SHA256 relaxed/relaxed and Ed25519-SHA256 simple/simple signatures pass")
    func fixturePasses() async {
        let outcomes = await Self.verifier().verify(DKIMFixture.message)
        #expect(outcomes.map(\.result) == [.pass, .pass])
        #expect(outcomes.map(\.selector) == ["rsa1", "ed1"] && outcomes.allSatisfy { $0.domain == "example.com" })
    }

    @Test("a changed body fails both; a changed signed header fails both; an unsigned header changes nothing")
    func tampering() async {
        let text = String(decoding: DKIMFixture.message, as: UTF8.self)
        let body = Array(text.replacingOccurrences(of: "Bye.", with: "Buy.").utf8)
        #expect(await Self.verifier().verify(body).map(\.result) == [.fail, .fail])
        let subject = Array(text.replacingOccurrences(of: "folded", with: "forged").utf8)
        #expect(await Self.verifier().verify(subject).map(\.result) == [.fail, .fail])
        // Date is signed by the RSA signature only (the Ed25519 one signs From, To, Subject).
        let date = Array(text.replacingOccurrences(of: "10:00:00", with: "11:00:00").utf8)
        #expect(await Self.verifier().verify(date).map(\.result) == [.fail, .pass])
        // Relaxed tolerates whitespace changes in signed headers; simple does not.
        let spaced = Array(text.replacingOccurrences(of: "To: bob@example.org", with: "To:   bob@example.org ").utf8)
        #expect(await Self.verifier().verify(spaced).map(\.result) == [.pass, .fail])
    }

    @Test("no key, a revoked key, a wrong key type, a failed lookup and an expired signature")
    func keyProblems() async {
        #expect(await Self.verifier(FakeDNS()).verify(DKIMFixture.message).map(\.result) == [.permerror, .permerror])
        var revoked = Self.keys
        revoked.txtRecords["rsa1._domainkey.example.com"] = ["v=DKIM1; k=rsa; p="]
        revoked.txtRecords["ed1._domainkey.example.com"] = [DKIMFixture.rsaKeyRecord]
        #expect(await Self.verifier(revoked).verify(DKIMFixture.message).map(\.result) == [.fail, .permerror])
        var failing = Self.keys
        failing.failing = ["rsa1._domainkey.example.com"]
        #expect(await Self.verifier(failing).verify(DKIMFixture.message).first?.result == .temperror)
        let text = String(decoding: DKIMFixture.message, as: UTF8.self)
        let expiring = Array(
            text.replacingOccurrences(of: "t=1795602199; h=from : to : subject;", with: "x=1; h=from : to : subject;")
                .utf8)
        #expect(await Self.verifier().verify(expiring).last?.result == .fail)
        #expect(await Self.verifier().verify(Array("From: a@b.c\r\n\r\nhi\r\n".utf8)).isEmpty)
    }

    @Test("RFC 6376 section 3.4.5: relaxed and simple canonicalization of its example")
    func canonicalizationExample() {
        let headers = ["A: X", "B : Y\t\r\n\tZ  "].map { Array($0.utf8) }
        #expect(
            headers.map { String(decoding: DKIMCanonicalization.relaxed.header($0), as: UTF8.self) } == [
                "a:X\r\n", "b:Y Z\r\n",
            ])
        #expect(
            String(decoding: DKIMCanonicalization.simple.header(headers[1]), as: UTF8.self) == "B : Y\t\r\n\tZ  \r\n")
        let body = Array(" C \r\nD \t E\r\n\r\n\r\n".utf8)
        #expect(String(decoding: DKIMCanonicalization.relaxed.body(body), as: UTF8.self) == " C\r\nD E\r\n")
        #expect(String(decoding: DKIMCanonicalization.simple.body(body), as: UTF8.self) == " C \r\nD \t E\r\n")
        #expect(DKIMCanonicalization.simple.body([UInt8]()) == Array("\r\n".utf8))
        #expect(DKIMCanonicalization.relaxed.body([UInt8]()).isEmpty)
        #expect(String(decoding: DKIMCanonicalization.simple.body(Array("x".utf8)), as: UTF8.self) == "x\r\n")
    }

    @Test("the b= value is emptied and nothing else of the signature field changes")
    func signatureValueRemoved() {
        let field = Array("DKIM-Signature: v=1; bh=abc=;\r\n b=ZGVm\r\n Zw==; d=x.test".utf8)
        #expect(
            String(decoding: DKIMVerifier.withoutSignatureValue(field), as: UTF8.self)
                == "DKIM-Signature: v=1; bh=abc=;\r\n b=; d=x.test")
    }
}

import Testing

@testable import CustomDomains

/// The SPF and DMARC records a custom domain publishes for sending, and the record states a check keeps.
@Suite("Custom domains: SPF and DMARC records, and the states a check keeps")
struct SendingPolicyRecordTests {
    @Test("each record's name and value for a domain, SPF first")
    func records() {
        let all = SendingPolicyRecord.all(for: "example.com")
        #expect(all.map(\.kind) == [.spf, .dmarc])
        #expect(all.map(\.name) == ["example.com", "_dmarc.example.com"])
        #expect(all.map(\.value) == ["v=spf1 mx -all", "v=DMARC1; p=quarantine; rua=mailto:postmaster@example.com"])
    }

    @Test("published when exactly one record of the kind is there, whatever its terms; not for look-alikes or two")
    func published() {
        let spf = SendingPolicyRecord(.spf, domain: "example.com")
        #expect(spf.isPublished(in: ["postern-verify-abc", "v=spf1 mx -all"]))
        #expect(spf.isPublished(in: ["V=SPF1 include:_spf.relay.example ~all"]))
        #expect(spf.isPublished(in: ["v=spf1"]))
        #expect(!spf.isPublished(in: []))
        #expect(!spf.isPublished(in: ["v=spf10 mx"]), "another version")
        #expect(!spf.isPublished(in: ["v=spf1 mx -all", "v=spf1 a -all"]), "two SPF records are a permanent error")
        let dmarc = SendingPolicyRecord(.dmarc, domain: "example.com")
        #expect(dmarc.isPublished(in: ["v=DMARC1; p=none"]))
        #expect(dmarc.isPublished(in: ["v=dmarc1;p=reject"]))
        #expect(!dmarc.isPublished(in: ["v=DMARC10; p=none"]))
        #expect(!dmarc.isPublished(in: ["p=none; v=DMARC1"]), "the version tag comes first (RFC 7489 6.3)")
        #expect(!dmarc.isPublished(in: ["v=DMARC1; p=none", "v=DMARC1; p=reject"]))
    }

    @Test("the kept states read back as written; what is not such an object reads as none")
    func statesRoundTrip() throws {
        let states = DomainRecordStates(
            txt: true, mx: false, spf: true, dmarc: nil,
            dkim: ["rsa-1._domainkey.example.com": true, "ed25519-1._domainkey.example.com": false],
            checkedAt: 1_800_000_000)
        #expect(DomainRecordStates(json: states.json) == states)
        #expect(states.published(.spf) == true && states.published(.dmarc) == nil)
        #expect(DomainRecordStates(json: "not json") == nil)
        #expect(DomainRecordStates(json: #"{"txt":true}"#) == nil, "no check time")
    }
}

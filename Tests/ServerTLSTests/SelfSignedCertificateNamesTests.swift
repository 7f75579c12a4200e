import ServerTLS
import Testing

/// The names a self-signed certificate carries: a client reaching `127.0.0.1` or `::1` with it as its CA verifies it.
@Suite("Self-signed certificate: subject alternative names")
struct SelfSignedCertificateNamesTests {
    @Test("the host name and every other name asked for, addresses as IP names; nothing else")
    func names() throws {
        let pair = try SelfSignedCertificate.generate(
            hostname: "localhost",
            alternativeNames: [.ipv4("127.0.0.1"), .ipv6("::1"), .dns("Mail.Example.test"), .dns("LOCALHOST")])
        let named: [SubjectAlternativeName] = [
            .dns("localhost"), .ipv4("127.0.0.1"), .ipv6("::1"), .ipv6("0:0:0:0:0:0:0:1"), .dns("mail.example.test"),
            .dns("127.0.0.1"),  // the IPv4 address as a DNS name too, for clients that look there alone
        ]
        for name in named {
            #expect(SelfSignedCertificate.names([name], in: pair.certificatePEM), "\(name)")
        }
        let unnamed: [SubjectAlternativeName] = [
            .ipv4("127.0.0.2"), .ipv6("::2"), .dns("example.test"), .dns("other.localhost"),
        ]
        for name in unnamed {
            #expect(!SelfSignedCertificate.names([name], in: pair.certificatePEM), "\(name)")
        }
        #expect(!SelfSignedCertificate.names([.dns("localhost"), .ipv4("10.0.0.1")], in: pair.certificatePEM))
    }

    @Test("a pair made for its host name alone does not name 127.0.0.1: the check that makes it again says so")
    func hostNameAlone() throws {
        let pair = try SelfSignedCertificate.generate(hostname: "localhost")
        #expect(SelfSignedCertificate.names([.dns("localhost")], in: pair.certificatePEM))
        #expect(!SelfSignedCertificate.names([.dns("localhost"), .ipv4("127.0.0.1")], in: pair.certificatePEM))
        #expect(!SelfSignedCertificate.names([.dns("localhost")], in: "not a certificate"))
    }

    @Test("a host name that is no DNS name is left out, and not asked for; the rest still go in")
    func oddNames() throws {
        let pair = try SelfSignedCertificate.generate(
            hostname: "mx.test", alternativeNames: [.dns("a b"), .dns("x,DNS:evil"), .ipv6("::1")])
        #expect(SelfSignedCertificate.names([.dns("mx.test"), .ipv6("::1"), .dns("a b")], in: pair.certificatePEM))
        #expect(!SelfSignedCertificate.names([.dns("evil")], in: pair.certificatePEM))
    }
}

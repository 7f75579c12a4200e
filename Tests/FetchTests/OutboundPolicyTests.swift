import Testing

@testable import Fetch

@Suite("OutboundPolicy: the checks before any lookup")
struct OutboundPolicyTests {
    @Test("by default only https to a name or a global literal")
    func defaults() throws {
        let policy = OutboundPolicy()
        #expect(try policy.vet("https://hooks.example.com/in").isHTTPS)
        #expect(try policy.vet("https://93.184.215.14:8443/").port == 8443)
        #expect(throws: FetchError.insecureScheme) { try policy.vet("http://hooks.example.com/") }
        #expect(throws: FetchError.invalidURL) { try policy.vet("ftp://hooks.example.com/") }
        #expect(throws: FetchError.invalidURL) { try policy.vet("hooks.example.com") }
        #expect(throws: FetchError.notAllowed(.loopback)) { try policy.vet("https://127.0.0.1/") }
        #expect(throws: FetchError.notAllowed(.loopback)) { try policy.vet("https://[::ffff:127.0.0.1]/") }
        #expect(throws: FetchError.notAllowed(.loopback)) { try policy.vet("https://api.localhost/") }
        #expect(throws: FetchError.notAllowed(.private)) { try policy.vet("https://192.168.1.1/") }
        #expect(throws: FetchError.notAllowed(.linkLocal)) { try policy.vet("https://169.254.169.254/") }
    }

    @Test("allowPrivate opens loopback and private targets and plain http, never link-local")
    func allowPrivate() throws {
        let policy = OutboundPolicy(allowPrivate: true)
        #expect(policy.allowPlainHTTP)
        #expect(try policy.vet("http://127.0.0.1:8080/hook").port == 8080)
        #expect(try policy.vet("https://localhost/").isHTTPS)
        #expect(throws: FetchError.notAllowed(.linkLocal)) { try policy.vet("http://169.254.169.254/") }
        #expect(throws: FetchError.insecureScheme) {
            try OutboundPolicy(allowPrivate: true, allowPlainHTTP: false).vet("http://127.0.0.1/")
        }
    }

    @Test("an allowed host passes whatever it is, https still required")
    func allowedHosts() throws {
        let policy = OutboundPolicy(allowedHosts: ["10.1.2.3", "internal.test"])
        #expect(try policy.vet("https://10.1.2.3/").isHTTPS)
        #expect(throws: FetchError.insecureScheme) { try policy.vet("http://10.1.2.3/") }
        #expect(throws: FetchError.notAllowed(.private)) { try policy.vet("https://10.1.2.4/") }
        #expect(policy.fetchConfiguration.policy.allowedHosts == ["10.1.2.3", "internal.test"])
    }
}

import ConfigurationReading
import Testing

@testable import Fetch

@Suite("OutboundAddressConfiguration: the operator's outbound policy, its older names, its refusals")
struct OutboundAddressConfigurationTests {
    static func read(_ values: [String: String]) throws -> OutboundAddressConfiguration {
        try OutboundAddressConfiguration(config: ConfigurationReader { values[$0] })
    }

    @Test("unset: nothing private, no host, https only")
    func defaults() throws {
        let c = try Self.read([:])
        #expect(!c.allowPrivate && c.allowedHosts.isEmpty)
        #expect(c.policy == OutboundPolicy() && !c.policy.allowPlainHTTP)
    }

    @Test("the outbound names, trimmed; the policy lets private addresses and plain http through")
    func outboundNames() throws {
        let c = try Self.read([
            "POSTERN_OUTBOUND_ALLOW_PRIVATE": " ON ", "POSTERN_OUTBOUND_ALLOWED_HOSTS": "b.test, ,A.test",
        ])
        #expect(c.allowPrivate && c.allowedHosts == ["b.test", "A.test"])
        #expect(c.policy.allowPlainHTTP && c.policy.addresses.allowedHosts == ["a.test", "b.test"])
        #expect(try c.policy.vet("http://127.0.0.1:9/").port == 9)
    }

    @Test("the remote-hash names are read when the outbound names are unset, and lose to them when set (even empty)")
    func olderNames() throws {
        let old = try Self.read([
            "POSTERN_REMOTE_HASH_ALLOW_PRIVATE": "true", "POSTERN_REMOTE_HASH_ALLOWED_HOSTS": "a.test",
        ])
        #expect(old.allowPrivate && old.allowedHosts == ["a.test"])
        let both = try Self.read([
            "POSTERN_REMOTE_HASH_ALLOW_PRIVATE": "true", "POSTERN_OUTBOUND_ALLOW_PRIVATE": "off",
            "POSTERN_REMOTE_HASH_ALLOWED_HOSTS": "a.test", "POSTERN_OUTBOUND_ALLOWED_HOSTS": "",
        ])
        #expect(!both.allowPrivate && both.allowedHosts.isEmpty)
    }

    @Test("a switch that is neither on nor off is refused, naming the key it was read as", arguments: [
        "POSTERN_OUTBOUND_ALLOW_PRIVATE", "POSTERN_REMOTE_HASH_ALLOW_PRIVATE",
    ])
    func refusal(key: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try Self.read([key: "sometimes"]) }
        #expect(error?.key == key)
    }
}

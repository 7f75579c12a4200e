import MailTransfer
import SMTPClient
import ConfigurationReading
import Testing

/// The transport's settings: the modes, the relay URL's parts, the port and TLS policy, each bad value refused naming
/// its key, and the relay password never shown.
@Suite("Outbound configuration: modes, relay URL, TLS, errors naming the key")
struct OutboundConfigurationTests {
    static func parse(_ values: [String: String]) throws -> OutboundConfiguration {
        try OutboundConfiguration(config: ConfigurationReader { values[$0] })
    }

    @Test("unset: off, port 25, opportunistic TLS, system roots, no relay")
    func defaults() throws {
        let configuration = try Self.parse([:])
        #expect(configuration == OutboundConfiguration())
        #expect(configuration.mode == .off && configuration.smtpPort == 25 && configuration.tls == .opportunistic)
        #expect(configuration.relay == nil && configuration.trustCAFile == nil)
    }

    @Test("relay mode: the URL's host, port, credentials (percent-decoded) and STARTTLS; the other keys read")
    func relay() throws {
        let configuration = try Self.parse([
            "POSTERN_OUTBOUND_DELIVERY": " Relay ",
            "POSTERN_RELAY_URL": "smtp://agent%40ops:p%3Ass%20word@Relay.Example.com:2525",
            "POSTERN_OUTBOUND_TLS": "required", "POSTERN_OUTBOUND_SMTP_PORT": "2526",
            "POSTERN_OUTBOUND_TRUST_CA_FILE": "/tmp/ca.pem",
        ])
        #expect(configuration.mode == .relay && configuration.tls == .required && configuration.smtpPort == 2526)
        #expect(configuration.trustCAFile == "/tmp/ca.pem")
        #expect(
            configuration.relay
                == RelayEndpoint(
                    host: "relay.example.com", port: 2525,
                    credentials: SMTPCredentials(username: "agent@ops", password: "p:ss word"), implicitTLS: false))
    }

    @Test("relay URLs: default ports 587 and 465, smtps is implicit TLS, no user means no AUTH, IPv6 literals")
    func relayURLs() throws {
        #expect(
            try RelayEndpoint(url: "smtp://relay.test")
                == RelayEndpoint(
                    host: "relay.test", port: 587, credentials: nil, implicitTLS: false))
        #expect(
            try RelayEndpoint(url: "SMTPS://u:p@relay.test/")
                == RelayEndpoint(
                    host: "relay.test", port: 465, credentials: SMTPCredentials(username: "u", password: "p"),
                    implicitTLS: true))
        #expect(try RelayEndpoint(url: "smtp://[::1]:25").host == "::1")
        #expect(
            try RelayEndpoint(url: "smtp://u@relay.test").credentials == SMTPCredentials(username: "u", password: ""))
    }

    @Test(
        "bad relay URLs are refused with what is wrong",
        arguments: [
            ("relay.test:587", RelayURLError.notAURL), ("http://relay.test", .unsupportedScheme("http")),
            ("smtp://relay.test/path", .unexpectedPath), ("smtp://relay.test?x=1", .unexpectedPath),
            ("smtp://:pw@relay.test", .invalidUserInfo), ("smtp://u:%zz@relay.test", .invalidUserInfo),
            ("smtp://u:p@", .invalidHost), ("smtp://re lay.test", .invalidHost), ("smtp://relay.test:0", .invalidPort),
            ("smtp://relay.test:70000", .invalidPort), ("smtp://relay.test:+25", .invalidPort),
        ])
    func badRelayURL(url: String, expected: RelayURLError) {
        #expect(throws: expected) { try RelayEndpoint(url: url) }
    }

    @Test(
        "a bad value stops the configuration, naming its key",
        arguments: [
            (["POSTERN_OUTBOUND_DELIVERY": "relay"], "POSTERN_RELAY_URL"),
            (["POSTERN_OUTBOUND_DELIVERY": "smarthost"], "POSTERN_OUTBOUND_DELIVERY"),
            (["POSTERN_RELAY_URL": "ftp://u:secret@relay.test"], "POSTERN_RELAY_URL"),
            (["POSTERN_OUTBOUND_SMTP_PORT": "0"], "POSTERN_OUTBOUND_SMTP_PORT"),
            (["POSTERN_OUTBOUND_SMTP_PORT": "twenty-five"], "POSTERN_OUTBOUND_SMTP_PORT"),
            (["POSTERN_OUTBOUND_TLS": "disabled"], "POSTERN_OUTBOUND_TLS"),
        ])
    func refused(values: [String: String], key: String) {
        let error = #expect(throws: ConfigurationError.self) { try Self.parse(values) }
        #expect(error?.key == key)
    }

    @Test("the relay password appears in no description and no error")
    func passwordHidden() throws {
        let configuration = try Self.parse([
            "POSTERN_OUTBOUND_DELIVERY": "relay", "POSTERN_RELAY_URL": "smtps://relay:hunter2-secret@relay.test",
        ])
        #expect(!configuration.description.contains("hunter2"))
        #expect(!String(describing: configuration.relay).contains("hunter2"))
        #expect(!"\(configuration)".contains("hunter2"))
        #expect(configuration.description.contains("smtps://relay:***@relay.test:465"))
        let error = #expect(throws: ConfigurationError.self) {
            try Self.parse(["POSTERN_RELAY_URL": "smtp://relay:hunter2-secret@relay.test/x"])
        }
        #expect(error.map { !$0.description.contains("hunter2") } == true)
        let scheme = #expect(throws: ConfigurationError.self) {
            try Self.parse(["POSTERN_RELAY_URL": "relay:hunter2-secret@relay.test://x"])
        }
        #expect(scheme.map { !$0.description.contains("hunter2") } == true)
    }
}

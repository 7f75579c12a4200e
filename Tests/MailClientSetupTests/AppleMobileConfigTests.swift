import Foundation
import Testing

@testable import MailClientSetup

/// Apple Mail's configuration profile (issue 87 item 4): a known answer read back as a property list, the servers
/// autoconfig announces, every value escaped.
@Suite("Mail client setup: Apple's .mobileconfig")
struct AppleMobileConfigTests {
    static let ids = AppleMobileConfig.Identifiers(
        profile: "6F1F2A0E-0000-4000-8000-00000000000A", account: "6F1F2A0E-0000-4000-8000-00000000000B")

    /// The profile read back by Foundation's property-list reader, as Apple's devices read it.
    static func read(_ document: String) throws -> [String: Any] {
        let plist = try PropertyListSerialization.propertyList(from: Data(document.utf8), options: [], format: nil)
        return try #require(plist as? [String: Any])
    }

    @Test("known answer: one com.apple.mail.managed payload, IMAP in and submission out, implicit TLS first")
    func knownAnswer() throws {
        let document = try #require(
            AppleMobileConfig.document(
                address: "bot@agents.example.org", password: "abcd-efgh-ijkl-mnop-qrst-uvwx-yzab",
                servers: MailClientSetupTests.servers
                    + [MailClientServer(.smtp, host: "mail.example.org", port: 1465, security: .implicitTLS)],
                displayName: "Postern", ids: Self.ids))
        let profile = try Self.read(document.text)
        #expect(profile["PayloadType"] as? String == "Configuration")
        #expect(profile["PayloadUUID"] as? String == Self.ids.profile)
        #expect(profile["PayloadIdentifier"] as? String == "org.example.mail.postern.mail.bot@agents.example.org")
        #expect(profile["PayloadVersion"] as? Int == 1)
        #expect(profile["PayloadRemovalDisallowed"] as? Bool == false)
        let payloads = try #require(profile["PayloadContent"] as? [[String: Any]])
        #expect(payloads.count == 1)
        let mail = payloads[0]
        let expected: [String: String] = [
            "PayloadType": "com.apple.mail.managed", "PayloadUUID": Self.ids.account,
            "PayloadIdentifier": "org.example.mail.postern.mail.bot@agents.example.org.account",
            "EmailAccountType": "EmailTypeIMAP", "EmailAddress": "bot@agents.example.org",
            "IncomingMailServerHostName": "mail.example.org", "IncomingMailServerUsername": "bot@agents.example.org",
            "IncomingMailServerAuthentication": "EmailAuthPassword", "IncomingPassword": "abcd-efgh-ijkl-mnop-qrst-uvwx-yzab",
            "OutgoingMailServerHostName": "mail.example.org", "OutgoingMailServerUsername": "bot@agents.example.org",
            "OutgoingMailServerAuthentication": "EmailAuthPassword",
        ]
        for (key, value) in expected { #expect(mail[key] as? String == value, "\(key)") }
        #expect(mail["IncomingMailServerPortNumber"] as? Int == 1993)
        #expect(mail["OutgoingMailServerPortNumber"] as? Int == 1465)
        #expect(mail["IncomingMailServerUseSSL"] as? Bool == true && mail["OutgoingMailServerUseSSL"] as? Bool == true)
        #expect(mail["OutgoingPasswordSameAsIncomingPassword"] as? Bool == true)
    }

    @Test("an address, host or password with markup is escaped and reads back as it was")
    func escaped() throws {
        let servers = [
            MailClientServer(.imap, host: "a<b>&c", port: 993, security: .implicitTLS),
            MailClientServer(.smtp, host: "a<b>&c", port: 587, security: .startTLS),
        ]
        let document = try #require(
            AppleMobileConfig.document(
                address: "\"x</string><key>y\"@example.org", password: "p<&>'\"", servers: servers,
                displayName: "Post&ern", ids: Self.ids))
        #expect(!document.text.contains("</string><key>y"))
        let mail = try #require((try Self.read(document.text)["PayloadContent"] as? [[String: Any]])?.first)
        #expect(mail["EmailAddress"] as? String == "\"x</string><key>y\"@example.org")
        #expect(mail["IncomingPassword"] as? String == "p<&>'\"")
        #expect(mail["IncomingMailServerHostName"] as? String == "a<b>&c")
        #expect(mail["OutgoingMailServerPortNumber"] as? Int == 587)
    }

    @Test("no profile without an IMAP or a submission server; the service's has fresh ids and parses")
    func incomplete() throws {
        let imapOnly = [MailClientServer(.imap, host: "h", port: 993, security: .implicitTLS)]
        #expect(AppleMobileConfig.document(address: "a@h", password: "p", servers: imapOnly, displayName: "P", ids: Self.ids) == nil)
        let smtpOnly = [MailClientServer(.smtp, host: "h", port: 465, security: .implicitTLS)]
        #expect(AppleMobileConfig.document(address: "a@h", password: "p", servers: smtpOnly, displayName: "P", ids: Self.ids) == nil)
        let service = MailClientSetupTests.service
        let one = try #require(service.appleMailProfile(address: "a@example.org", password: "p"))
        let two = try #require(service.appleMailProfile(address: "a@example.org", password: "p"))
        let (first, second) = (try Self.read(String(decoding: one, as: UTF8.self)), try Self.read(String(decoding: two, as: UTF8.self)))
        #expect(first["PayloadUUID"] as? String != second["PayloadUUID"] as? String)
        #expect(AppleMobileConfig.reversed("mail.example.org") == "org.example.mail")
        #expect(AppleMobileConfig.reversed("127.0.0.1") == "127.0.0.1" && AppleMobileConfig.reversed("localhost") == "localhost")
    }
}

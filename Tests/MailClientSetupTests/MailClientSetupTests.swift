import HTTP1
import ServerKit
import Testing

@testable import MailClientSetup

/// Thunderbird's autoconfig and Outlook's autodiscover: the documents, the request's address, and the routes' answers
/// for a served domain, another domain and a request without an address.
@Suite("Mail client setup: Thunderbird autoconfig and Outlook autodiscover")
struct MailClientSetupTests {
    static let servers = [
        MailClientServer(.pop3, host: "mail.example.org", port: 1110, security: .startTLS),
        MailClientServer(.imap, host: "mail.example.org", port: 1143, security: .startTLS),
        MailClientServer(.imap, host: "mail.example.org", port: 1993, security: .implicitTLS),
        MailClientServer(.smtp, host: "mail.example.org", port: 1587, security: .startTLS),
    ]
    static let service = MailClientSetupService(
        servers: servers, displayName: "Postern", serves: { $0 == "example.org" })

    static func request(_ method: HTTPMethod, _ target: String, body: String = "") -> HTTPRequest {
        HTTPRequest(
            method: method, target: target, version: .http1_1, headers: HTTPHeaders(), body: Array(body.utf8),
            remoteAddress: "192.0.2.7", requestID: "setup-test")
    }

    /// `xml` without the white space between its elements.
    static func compact(_ xml: String) -> String {
        xml.split(separator: "\n").map { $0.drop { $0 == " " } }.joined()
    }

    @Test("servers are offered IMAP, POP3, SMTP, implicit TLS before STARTTLS")
    func preferred() {
        #expect(MailClientServer.preferred(Self.servers).map { "\($0.kind.rawValue):\($0.port)" }
            == ["imap:1993", "imap:1143", "pop3:1110", "smtp:1587"])
    }

    @Test("Thunderbird's document: the domain, each server with its socket type, the address as the user name")
    func thunderbird() {
        let xml = ThunderbirdAutoconfig.document(domain: "example.org", servers: Self.servers, displayName: "Postern")
            .text
        #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(xml.contains(#"<emailProvider id="example.org">"#))
        #expect(xml.contains("<domain>example.org</domain>"))
        #expect(Self.compact(xml).contains(
            #"<incomingServer type="imap"><hostname>mail.example.org</hostname><port>1993</port><socketType>SSL</socketType>"#))
        #expect(xml.contains(#"<outgoingServer type="smtp">"#))
        #expect(xml.contains("<socketType>STARTTLS</socketType>"))
        #expect(xml.components(separatedBy: "<username>%EMAILADDRESS%</username>").count == 5)
        #expect(xml.range(of: "1993")!.lowerBound < xml.range(of: "1143")!.lowerBound)
    }

    @Test("a domain with markup in it is written as text, never as an element")
    func escaped() {
        let xml = ThunderbirdAutoconfig.document(
            domain: #"x"><evil/>"#, servers: [], displayName: "A & B").text
        #expect(!xml.contains("<evil/>"))
        #expect(xml.contains("&lt;evil/&gt;") && xml.contains("A &amp; B"))
    }

    @Test("the autodiscover request's address, in any namespace prefix; none when absent, empty or not UTF-8")
    func requestAddress() {
        let request = """
            <?xml version="1.0" encoding="utf-8"?>
            <Autodiscover xmlns="http://schemas.microsoft.com/exchange/autodiscover/outlook/requestschema/2006">
              <Request><EMailAddress> ann@example.org </EMailAddress>
              <AcceptableResponseSchema>http://schemas.microsoft.com/exchange/autodiscover/outlook/responseschema/2006a</AcceptableResponseSchema>
              </Request></Autodiscover>
            """
        #expect(OutlookAutodiscover.address(inRequest: Array(request.utf8)) == "ann@example.org")
        #expect(OutlookAutodiscover.address(inRequest: Array("<a:EMailAddress>b&amp;c@example.org</a:EMailAddress>".utf8))
            == "b&c@example.org")
        #expect(OutlookAutodiscover.address(inRequest: Array("<Request></EMailAddress>x</Request>".utf8)) == nil)
        #expect(OutlookAutodiscover.address(inRequest: Array("<EMailAddress> </EMailAddress>".utf8)) == nil)
        #expect(OutlookAutodiscover.address(inRequest: [0x3C, 0xFF, 0xFE]) == nil)
        #expect(OutlookAutodiscover.address(inRequest: []) == nil)
    }

    @Test("autoconfig: the document for a served domain, 404 for another, 400 without an address")
    func autoconfigRoute() {
        let served = Self.service.autoconfig(
            Self.request(.GET, "/.well-known/autoconfig/mail/config-v1.1.xml?emailaddress=ann%40Example.org"))
        #expect(served.status.code == 200)
        #expect(served.headers["Content-Type"] == "application/xml; charset=utf-8")
        #expect(String(decoding: served.body, as: UTF8.self).contains("<domain>example.org</domain>"))
        #expect(Self.service.autoconfig(Self.request(.GET, "/mail/config-v1.1.xml?emailaddress=ann@other.test"))
            .status.code == 404)
        #expect(Self.service.autoconfig(Self.request(.GET, "/mail/config-v1.1.xml")).status.code == 400)
        #expect(Self.service.autoconfig(Self.request(.GET, "/mail/config-v1.1.xml?emailaddress=ann")).status.code
            == 400)
    }

    @Test("autodiscover: the servers with the address as login for a served domain; error 600 otherwise")
    func autodiscoverRoute() {
        let served = Self.service.autodiscover(
            Self.request(.POST, "/autodiscover/autodiscover.xml", body: "<EMailAddress>ann@example.org</EMailAddress>"))
        let xml = String(decoding: served.body, as: UTF8.self)
        #expect(served.status.code == 200)
        #expect(xml.contains("<Type>IMAP</Type>") && xml.contains("<Type>SMTP</Type>"))
        #expect(xml.contains("<LoginName>ann@example.org</LoginName>"))
        #expect(Self.compact(xml).contains("<Port>1993</Port><DomainRequired>off</DomainRequired><LoginName>"))
        for body in ["<EMailAddress>ann@other.test</EMailAddress>", "not xml", ""] {
            let refused = String(
                decoding: Self.service.autodiscover(Self.request(.POST, "/autodiscover/autodiscover.xml", body: body))
                    .body, as: UTF8.self)
            #expect(refused.contains("<ErrorCode>600</ErrorCode>"), "\(body)")
        }
    }
}

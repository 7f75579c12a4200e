import Foundation
import MIME
import ServerKit

/// Outlook's autodiscover (the "plain old XML" protocol, `POST /autodiscover/autodiscover.xml`): the request names an
/// address, the answer lists the IMAP, POP3 and SMTP servers (response schema 2006a), or an error with code 600 when
/// the request names no address this server holds mail for.
public enum OutlookAutodiscover {
    /// The response schema the answer is written in, which Outlook's request names.
    static let responseSchema = "http://schemas.microsoft.com/exchange/autodiscover/outlook/responseschema/2006a"

    /// The `EMailAddress` of a request (the element in any namespace prefix), trimmed, its character references
    /// decoded (MIME's `HTMLTag`, which reads XML's five); nil when there is none, it is empty or the body is not UTF-8.
    public static func address(inRequest body: [UInt8]) -> String? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        var rest = Substring(text)
        while let open = rest.range(of: "EMailAddress>") {
            // An opening tag: `<` and at most a namespace prefix (letters, digits, `:`) before the name.
            let prefix = rest[..<open.lowerBound].reversed().prefix { $0 == ":" || $0.isLetter || $0.isNumber }
            let start = rest.index(open.lowerBound, offsetBy: -prefix.count)
            let isOpening = start > rest.startIndex && rest[rest.index(before: start)] == "<"
            rest = rest[open.upperBound...]
            guard isOpening else { continue }
            let value = rest.prefix { $0 != "<" }
            let address = HTMLTag.decodeReferences(String(value)).trimmingCharacters(in: .whitespacesAndNewlines)
            return address.isEmpty ? nil : address
        }
        return nil
    }

    /// The answer for `address`: its servers, best first, each with the address as its login name.
    public static func document(address: String, servers: [MailClientServer]) -> HTML {
        let protocols = MailClientServer.preferred(servers).map { protocolElement($0, login: address) }.joined()
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <Autodiscover xmlns="http://schemas.microsoft.com/exchange/autodiscover/responseschema/2006">
              <Response xmlns="\(responseSchema)">
                <Account>
                  <AccountType>email</AccountType>
                  <Action>settings</Action>
            \(protocols)    </Account>
              </Response>
            </Autodiscover>

            """
    }

    /// The error answer: code 600, "Invalid Request", as Exchange answers an address it does not know.
    public static let invalidRequest: HTML = """
        <?xml version="1.0" encoding="utf-8"?>
        <Autodiscover xmlns="http://schemas.microsoft.com/exchange/autodiscover/responseschema/2006">
          <Response>
            <Error Id="0">
              <ErrorCode>600</ErrorCode>
              <Message>Invalid Request</Message>
              <DebugData />
            </Error>
          </Response>
        </Autodiscover>

        """

    private static func protocolElement(_ server: MailClientServer, login: String) -> HTML {
        // SSL on: TLS from the first byte. For SMTP with STARTTLS, Encryption TLS says to upgrade (SSL off).
        let ssl: HTML = server.security == .implicitTLS ? "on" : "off"
        let encryption: HTML = server.security == .implicitTLS ? "SSL" : "TLS"
        return """
                  <Protocol>
                    <Type>\(server.kind.rawValue.uppercased())</Type>
                    <Server>\(server.host)</Server>
                    <Port>\(String(server.port))</Port>
                    <DomainRequired>off</DomainRequired>
                    <LoginName>\(login)</LoginName>
                    <SPA>off</SPA>
                    <SSL>\(ssl)</SSL>
                    <Encryption>\(encryption)</Encryption>
                    <AuthRequired>on</AuthRequired>
                  </Protocol>

            """
    }
}

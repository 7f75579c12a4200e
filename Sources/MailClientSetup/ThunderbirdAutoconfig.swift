import ServerKit

/// Thunderbird's autoconfig document (`config-v1.1.xml`, the format of Thunderbird's ISP database, served at
/// `/.well-known/autoconfig/mail/config-v1.1.xml` and at `/mail/config-v1.1.xml` on an `autoconfig.` host): each
/// incoming and outgoing server of `servers`, best first, with the address as the user name. Written with
/// ServerKit's `HTML`, whose escaping is XML's: no value can open an element.
public enum ThunderbirdAutoconfig {
    /// The document for mailboxes on `domain`.
    public static func document(domain: String, servers: [MailClientServer], displayName: String) -> HTML {
        let entries = MailClientServer.preferred(servers).map(server).joined()
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <clientConfig version="1.1">
              <emailProvider id="\(domain)">
                <domain>\(domain)</domain>
                <displayName>\(displayName)</displayName>
                <displayShortName>\(displayName)</displayShortName>
            \(entries)  </emailProvider>
            </clientConfig>

            """
    }

    private static func server(_ server: MailClientServer) -> HTML {
        let element: HTML = server.kind == .smtp ? "outgoingServer" : "incomingServer"
        let socket: HTML = server.security == .implicitTLS ? "SSL" : "STARTTLS"
        return """
                <\(element) type="\(server.kind.rawValue)">
                  <hostname>\(server.host)</hostname>
                  <port>\(String(server.port))</port>
                  <socketType>\(socket)</socketType>
                  <authentication>password-cleartext</authentication>
                  <username>%EMAILADDRESS%</username>
                </\(element)>

            """
    }
}

import ServerKit

/// Apple's configuration profile (`.mobileconfig`, served as `application/x-apple-aspen-config`) of one mailbox
/// (issue 87 item 4): a property list whose one `com.apple.mail.managed` payload gives Mail the incoming IMAP server and
/// the outgoing submission server, each the best of ``MailClientServer/preferred(_:)`` (implicit TLS first, as
/// autoconfig announces them), the address as both user names and one password for both. Unsigned: the device shows it
/// as "Not Verified" and installs it all the same. Written with ServerKit's `HTML`, whose escaping is XML's: no
/// address, host or password can open an element.
public enum AppleMobileConfig {
    /// The profile's two ids: the whole profile's and the mail payload's (UUIDs, fresh for each download).
    public struct Identifiers: Sendable {
        public var profile: String
        public var account: String

        public init(profile: String, account: String) {
            self.profile = profile
            self.account = account
        }
    }

    /// The profile for `address` with `password`; nil when `servers` has no IMAP server or no submission server (Mail
    /// needs both).
    /// - Parameter displayName: the provider's name, in the profile's and the account's descriptions.
    public static func document(
        address: String, password: String, servers: [MailClientServer], displayName: String, ids: Identifiers
    ) -> HTML? {
        let preferred = MailClientServer.preferred(servers)
        guard let incoming = preferred.first(where: { $0.kind == .imap }),
            let outgoing = preferred.first(where: { $0.kind == .smtp })
        else { return nil }
        // Both payload identifiers are reverse-DNS names under the incoming host, the mailbox's address last: the same
        // mailbox's next profile replaces this one on the device instead of adding a second account.
        let identifier = reversed(incoming.host) + ".postern.mail." + address
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
              <key>PayloadContent</key>
              <array>
                <dict>
                  <key>EmailAccountDescription</key><string>\(address)</string>
                  <key>EmailAccountName</key><string>\(address)</string>
                  <key>EmailAccountType</key><string>EmailTypeIMAP</string>
                  <key>EmailAddress</key><string>\(address)</string>
                  <key>IncomingMailServerAuthentication</key><string>EmailAuthPassword</string>
                  <key>IncomingMailServerHostName</key><string>\(incoming.host)</string>
                  <key>IncomingMailServerPortNumber</key><integer>\(String(incoming.port))</integer>
                  <key>IncomingMailServerUseSSL</key><true/>
                  <key>IncomingMailServerUsername</key><string>\(address)</string>
                  <key>IncomingPassword</key><string>\(password)</string>
                  <key>OutgoingMailServerAuthentication</key><string>EmailAuthPassword</string>
                  <key>OutgoingMailServerHostName</key><string>\(outgoing.host)</string>
                  <key>OutgoingMailServerPortNumber</key><integer>\(String(outgoing.port))</integer>
                  <key>OutgoingMailServerUseSSL</key><true/>
                  <key>OutgoingMailServerUsername</key><string>\(address)</string>
                  <key>OutgoingPasswordSameAsIncomingPassword</key><true/>
                  <key>PayloadDescription</key><string>Mail for \(address)</string>
                  <key>PayloadDisplayName</key><string>\(displayName) mail</string>
                  <key>PayloadIdentifier</key><string>\(identifier).account</string>
                  <key>PayloadType</key><string>com.apple.mail.managed</string>
                  <key>PayloadUUID</key><string>\(ids.account)</string>
                  <key>PayloadVersion</key><integer>1</integer>
                  <key>PreventAppSheet</key><false/>
                  <key>PreventMove</key><false/>
                  <key>SMIMEEnabled</key><false/>
                </dict>
              </array>
              <key>PayloadDescription</key><string>Sets up Mail for \(address) on \(displayName).</string>
              <key>PayloadDisplayName</key><string>\(displayName): \(address)</string>
              <key>PayloadIdentifier</key><string>\(identifier)</string>
              <key>PayloadRemovalDisallowed</key><false/>
              <key>PayloadType</key><string>Configuration</string>
              <key>PayloadUUID</key><string>\(ids.profile)</string>
              <key>PayloadVersion</key><integer>1</integer>
            </dict>
            </plist>

            """
    }

    /// `mail.example.com` as `com.example.mail` (a reverse-DNS prefix); an IP address or a one-label host as it is.
    static func reversed(_ host: String) -> String {
        let labels = host.split(separator: ".")
        guard labels.count > 1, !labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) else { return host }
        return labels.reversed().joined(separator: ".")
    }
}

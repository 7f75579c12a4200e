/// One server a mail client is told to use: what it speaks, where, and how its connection is secured. Every one takes
/// the mailbox's address as the user name (docs/imap.md, "Who signs in, with what").
public struct MailClientServer: Sendable, Equatable {
    /// What the server speaks.
    public enum Kind: String, Sendable, CaseIterable {
        case imap, pop3, smtp
    }

    /// How the connection is secured: TLS from the first byte (RFC 8314), or `STARTTLS` on a plaintext port.
    public enum Security: Sendable {
        case implicitTLS, startTLS
    }

    public var kind: Kind
    public var host: String
    public var port: Int
    public var security: Security

    public init(_ kind: Kind, host: String, port: Int, security: Security) {
        self.kind = kind
        self.host = host
        self.port = port
        self.security = security
    }

    /// `servers` in the order clients should prefer them: by kind (IMAP, POP3, SMTP), implicit TLS before `STARTTLS`
    /// (RFC 8314 §3: implicit TLS is the one to use).
    public static func preferred(_ servers: [MailClientServer]) -> [MailClientServer] {
        let kinds = Kind.allCases
        return servers.enumerated().sorted { a, b in
            let (ka, kb) = (kinds.firstIndex(of: a.element.kind)!, kinds.firstIndex(of: b.element.kind)!)
            if ka != kb { return ka < kb }
            if a.element.security != b.element.security { return a.element.security == .implicitTLS }
            return a.offset < b.offset
        }.map(\.element)
    }
}

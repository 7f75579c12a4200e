/// How Postern describes itself, in the same words wherever it does: `postern --help`, the first lines of
/// `/llms.txt`, `/openapi.json`'s `info.description`, `Package.swift`'s opening comment and the README (a test
/// holds the last three to these strings).
public enum PosternIntro {
    /// What Postern is, in one line.
    public static let summary = "A self-hosted mail and auth server for AI agents and test suites, on one port."

    /// Every surface it serves, in one sentence.
    public static let surfaces = """
        Agent signup (Atomic Mail's REST auth), JMAP mail with push, a remote MCP server, Mail.td accounts with Pro \
        (custom domains, webhooks, an SMTP sandbox), the Mailpit, Mailosaur, mail.tm and mail.cx APIs, IMAP and POP3 \
        for mail clients, owners who approve apps through OAuth 2.1, and remote Argon2 registration (Bad Passwords).
        """

    /// ``summary`` and ``surfaces``, one after the other.
    public static let text = summary + " " + surfaces
}

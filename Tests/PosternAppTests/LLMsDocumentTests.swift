import AgentAuth
import Directory
import JMAP
import MCPServer
import MailboxAccounts
import OAuthResource
import RemoteHashAuth
import Testing

@testable import PosternApp

@Suite("llms.txt: one guide for every API")
struct LLMsDocumentTests {
    static func render(
        powRequired: Bool = true, allowPrivate: Bool = false, smtpAddress: String? = "127.0.0.1:2525",
        imap: String = "", pop3: String = "", submission: String = ""
    ) -> String {
        var remote = RemoteHashConfiguration(issuer: "http://guide.test", publicURL: "http://guide.test")
        remote.allowPrivate = allowPrivate
        return LLMsDocument.render(
            baseURL: "http://guide.test",
            agent: AgentAuthConfiguration(publicURL: "http://guide.test"),
            mailbox: MailboxConfiguration(powDifficulty: 12, domains: ["box.test"], powRequired: powRequired),
            remote: remote, smtpAddress: smtpAddress, mcp: MCPConfiguration(baseURL: "http://guide.test"), imap: imap,
            pop3: pop3, submission: submission)
    }

    /// GitHub-style slugs of the headings, in order (duplicates kept, so that a clash shows).
    static func slugs(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("#") }.map { line in
            String(
                line.drop { $0 == "#" }.trimmingPrefix(" ").lowercased()
                    .compactMap { $0 == " " ? "-" : ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : nil) })
        }
    }

    @Test("IMAP's line is in the list when it is on, with its ports and the OAuth resource, and absent when off")
    func imapLine() {
        var imap = IMAPListenerConfiguration()
        #expect(imap.guideLine(baseURL: "http://guide.test").isEmpty)
        imap.listener.enabled = true
        imap.listener.implicitTLSPort = 993
        let line = imap.guideLine(baseURL: "http://guide.test")
        #expect(line.contains("port 1143 (STARTTLS) and 993 (implicit TLS)") && line.contains("http://guide.test/jmap"))
        #expect(Self.render(imap: line).contains("\n" + line + "\n"))
    }

    @Test("mail.cx's line says how it is configured: its domains and retention, or that no domain is served and why")
    func mailCXLine() {
        var configuration = PosternConfiguration()
        configuration.mailCX.domains = []
        let none = TempMailSurface.guideLine(configuration, baseURL: "http://guide.test")
        #expect(none.contains("mail.cx's REST API at http://guide.test/mailcx/v1, which serves no domain"))
        #expect(none.contains("domain_not_allowed") && none.contains("POSTERN_MAILCX_DOMAINS"))
        configuration.mailCX.domains = ["mailcx.localhost", "cx.test"]
        configuration.mailCX.retentionSeconds = 600
        let served = TempMailSurface.guideLine(configuration, baseURL: "http://guide.test")
        #expect(served.contains("any address of mailcx.localhost, cx.test") && served.contains("kept 600 s"))
        #expect(served.contains("GET http://guide.test/mailcx/v1/config") && !served.contains("domain_not_allowed"))
        configuration.mailCX.basePath = nil
        #expect(!TempMailSurface.guideLine(configuration, baseURL: "http://guide.test").contains("mail.cx's REST API"))
    }

    @Test("POP3's line follows IMAP's when it is on, with its ports and the OAuth resource, and is absent when off")
    func pop3Line() {
        var imap = IMAPListenerConfiguration()
        imap.listener.enabled = true
        let imapLine = imap.guideLine(baseURL: "http://guide.test")
        var pop3 = POP3ListenerConfiguration()
        let off = Self.render(imap: imapLine, pop3: pop3.guideLine(baseURL: "http://guide.test"))
        #expect(off.contains(imapLine) && !off.contains("- POP3 for mail clients"))
        pop3.listener.enabled = true
        pop3.listener.implicitTLSPort = 995
        let line = pop3.guideLine(baseURL: "http://guide.test")
        #expect(line.contains("port 1110 (STLS) and 995 (implicit TLS)") && line.contains("http://guide.test/jmap"))
        #expect(Self.render(imap: imapLine, pop3: line).contains("\n" + imapLine + "\n" + line + "\n"))
    }

    @Test("submission's line follows POP3's when it is on: its ports, the send scope and the sender rule; absent when off")
    func submissionLine() {
        var pop3 = POP3ListenerConfiguration()
        pop3.listener.enabled = true
        let pop3Line = pop3.guideLine(baseURL: "http://guide.test")
        var submission = SubmissionListenerConfiguration()
        #expect(submission.guideLine(baseURL: "http://guide.test").isEmpty)
        submission.listener.enabled = true
        submission.listener.implicitTLSPort = 465
        let line = submission.guideLine(baseURL: "http://guide.test")
        #expect(line.contains("port 1587 (STARTTLS) and 465 (implicit TLS)"))
        #expect(line.contains("http://guide.test/jmap carrying `mail.send`") && line.contains("`From` must be"))
        #expect(Self.render(pop3: pop3Line, submission: line).contains("\n" + pop3Line + "\n" + line + "\n"))
    }

    @Test("every anchor a docs_url or a section names is a heading, each heading once, and every in-page link resolves")
    func anchors() throws {
        let text = Self.render()
        let slugs = Self.slugs(text)
        #expect(Set(slugs).count == slugs.count, "duplicate headings: \(slugs)")
        let wanted =
            AgentLLMsText.anchors + AgentAuthError.catalogue.map(\.anchor) + MailboxLLMsText.anchors
            + RemoteHashLLMsText.anchors + MailLLMsText.anchors + [MCPLLMsText.anchor]
            + [OAuthResourceLLMsText.anchor, AuthenticationRefusal.docsAnchor]
        for anchor in wanted {
            #expect(slugs.contains(anchor), "missing #\(anchor)")
        }
        var rest = Substring(text)
        while let open = rest.range(of: "](#") {
            let tail = rest[open.upperBound...]
            let anchor = tail.prefix { $0 != ")" }
            #expect(slugs.contains(String(anchor)), "link to missing #\(anchor)")
            rest = tail
        }
    }

    @Test("an agent reads the code it was sent through MCP's tools, named in the guide")
    func codeFlow() {
        let text = Self.render()
        #expect(text.contains("Read the code you were sent"))
        for tool in ["wait_for_message", "get_verification_code", "get_links"] {
            #expect(text.contains("`\(tool)`: "), "the tool list names \(tool)")
        }
        #expect(text.contains("`wait_for_message` with `has_code: true`"))
    }

    @Test("the top names `postern agent signup` for this instance and the MCP host JSON an agent pastes")
    func quickStart() throws {
        let text = Self.render()
        let top = try #require(text.components(separatedBy: "## Agent signup (Atomic Mail compatible)").first)
        #expect(top.contains("postern agent signup --url http://guide.test --username"))
        #expect(top.contains(MCPLLMsText.hostJSON(baseURL: "http://guide.test")))
        #expect(top.contains(#""url": "http://guide.test/mcp""#))
        #expect(top.contains("ATOMIC_MAIL_AUTH_URL"))
    }

    @Test("each API's section has curl lines for this instance, and says what this instance's settings are")
    func sections() {
        let text = Self.render()
        #expect(text.contains("curl -i -X POST http://guide.test/api/v1/challenge"))
        #expect(text.contains("curl -s -X POST http://guide.test/api/accounts"))
        #expect(text.contains(#""address":"demo@box.test""#))
        #expect(text.contains("Difficulty on this instance: 12 bits"))
        #expect(text.contains("curl -s -X POST http://guide.test/register"))
        #expect(text.contains("http://guide.test/openapi.json"))
        #expect(text.contains("auth_key"))
        // The current names, not the older aliases the configuration still reads.
        #expect(text.contains("POSTERN_OUTBOUND_ALLOW_PRIVATE=true") && text.contains("POSTERN_OUTBOUND_ALLOWED_HOSTS"))
        #expect(!text.contains("POSTERN_REMOTE_HASH_"))
        #expect(text.contains("SMTP listens on `127.0.0.1:2525`"))
        #expect(text.contains("curl -s http://guide.test/.well-known/jmap"))
        #expect(text.contains("postern mail deliver --to"))
        #expect(text.contains("signs in at http://guide.test/owner") && text.contains("rotate an inbox's API key"))
        #expect(Self.render(smtpAddress: nil).contains("SMTP is off on this instance"))
        let relaxed = Self.render(powRequired: false, allowPrivate: true)
        #expect(relaxed.contains("Proof of work is optional on this instance"))
        #expect(relaxed.contains("lets hash URLs reach private and loopback addresses"))
        #expect(!text.contains("guide.test//"))
    }
}

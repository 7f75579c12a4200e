import HTTP1
import MCPServer
import RemoteHashAuth
import ServerKit

/// `GET /`: the first thing a person or an agent who only knows the address sees. It names what this server serves
/// (``PosternIntro``) and links to where each thing starts: the agents' guide and its sections, the web inbox, the
/// owners' pages, the OpenAPI description and the remote Argon2 demo, which follows on the same page (CONTRACT 3.1:
/// `GET /` is the demo page, and a form registration returns there) and stands alone at
/// ``RemoteHashService/pagePath``.
///
/// Ids (the browser walk reads them): `#serves`, `#links` (each `a` with an id of its own: `#link-llms`,
/// `#link-inbox`, `#link-owner`, `#link-openapi`, `#link-demo`), `#doors` (the mail doors served, each `li` with an id:
/// `#door-mailpit`, `#door-mailosaur`, `#door-mailtm`, `#door-mailcx`, `#door-imap`, `#door-pop3`, `#door-submission`),
/// `#start` (the first commands), `#docs`; the demo below starts at `#demo`.
enum LandingPage {
    /// One mail door the server serves: where a client points and what it finds there.
    struct Door: Equatable {
        /// The list item's id, `door-<name>`.
        let id: String
        /// What a client is given: a base path or a port.
        let at: String
        /// What it is.
        let what: String
    }

    /// The landing sections for a server whose public base URL is `baseURL`, for the demo page at `/`.
    static func landing(baseURL: String, doors: [Door] = []) -> RemotePageLanding {
        RemotePageLanding(
            title: "Postern", lead: "\(PosternIntro.summary) \(baseURL)",
            sections: sections(baseURL: baseURL, doors: doors))
    }

    /// The mail doors `configuration` serves: the Mailpit, Mailosaur, mail.tm and mail.cx APIs under their paths, IMAP
    /// and POP3 on their ports (a fixed one named; 0, a free one, left to `serve`'s lines), none of those turned off.
    static func doors(_ configuration: PosternConfiguration) -> [Door] {
        let domains = configuration.mailCX.domains
        // (base path, nil when turned off; id; what follows the base path; what it is)
        let apis: [(String?, String, String, String)] = [
            (
                configuration.mailpit.basePath, "door-mailpit", "/api/v1",
                "Mailpit's API v1 for a Mailpit test suite (the operator's token, or a Pro API token for its sandbox)"
            ),
            (
                configuration.mailosaur.basePath, "door-mailosaur", "/",
                "Mailosaur's API for a suite on its SDKs, codes and links included (the operator's token, or a Pro API "
                    + "token for its sandbox, as the API key)"
            ),
            (
                configuration.mailTM.basePath, "door-mailtm", "",
                "mail.tm's API for a mail.tm client, with its Mercure hub"
            ),
            (
                configuration.mailCX.basePath, "door-mailcx", "",
                domains.isEmpty
                    ? "mail.cx's REST API (no domain set: POSTERN_MAILCX_DOMAINS)"
                    : "mail.cx's REST API for any address of \(domains.joined(separator: ", "))"
            ),
        ]
        var doors = apis.compactMap { path, id, suffix, what in path.map { Door(id: id, at: $0 + suffix, what: what) } }
        let listeners = [
            (configuration.imap.listener, "IMAP", "STARTTLS", "every folder, for mail clients"),
            (configuration.pop3.listener, "POP3", "STLS", "the INBOX, with IMAP's sign-ins"),
            (configuration.submission.listener, "Submission", "STARTTLS", "clients send as the mailbox IMAP signs in to"),
        ]
        for (listener, name, upgrade, what) in listeners where listener.enabled {
            let ports = listener.guidePorts(upgrade: upgrade)
            doors.append(Door(id: "door-" + name.lowercased(), at: name + ports, what: what + " (docs/imap.md)"))
        }
        return doors
    }

    /// The sections, every value escaped.
    static func sections(baseURL: String, doors: [Door] = []) -> HTML {
        let base = baseURL
        let links: [(id: String, path: String, title: String, what: String)] = [
            ("link-llms", "/llms.txt", "/llms.txt", "the guide for agents: every API of this server, with curl lines"),
            ("link-inbox", "/inbox", "/inbox", "the web inbox: read mail in a browser"),
            ("link-owner", "/owner", "/owner", "owners: hold agent inboxes, custom domains, approve apps"),
            ("link-openapi", "/openapi.json", "/openapi.json", "the OpenAPI 3.1 description of every endpoint"),
            (
                "link-demo", RemoteHashService.pagePath, RemoteHashService.pagePath,
                "the remote Argon2 registration demo (register and log in with a hash URL)"
            ),
        ]
        let items = links.map { link -> HTML in
            "<li><a id=\"\(link.id)\" href=\"\(link.path)\"><code>\(link.title)</code></a> — \(link.what)</li>"
        }.joined(separator: "\n")
        let doorItems = doors.map { door -> HTML in
            "<li id=\"\(door.id)\"><code>\(door.at)</code> — \(door.what)</li>"
        }.joined(separator: "\n")
        let doorList: HTML =
            doors.isEmpty
            ? ""
            : """
            <h3>Mail doors</h3>
            <ul id="doors">
            \(doorItems)
            </ul>
            """
        let sections: [(anchor: String, title: String)] = [
            ("agent-signup-atomic-mail-compatible", "Agent signup (Atomic Mail compatible)"),
            ("mailbox-accounts-mailtd-compatible", "Mailbox accounts (Mail.td compatible)"),
            ("mail-receive-read-and-send", "Mail: receive, read and send"),
            (MCPLLMsText.anchor, "MCP server"),
            ("remote-argon2-registration", "Remote Argon2 registration"),
        ]
        let docs = sections.map { section -> HTML in
            "<li><a href=\"/llms.txt#\(section.anchor)\">\(section.title)</a></li>"
        }.joined(separator: "\n")
        let main: HTML = """
            <section class="card" id="serves">
            <h2>What this server serves</h2>
            <p>\(PosternIntro.surfaces)</p>
            <ul id="links">
            \(items)
            </ul>
            \(doorList)
            </section>
            <section class="card" id="start">
            <h2>Start</h2>
            <p>An agent gets an inbox and an API key with
            <code>postern agent signup --url \(base) --username NAME</code>, then reaches it from any MCP host at
            <code>\(base)/mcp</code>
            (the host JSON is in <a href="/llms.txt#\(MCPLLMsText.anchor)">/llms.txt</a>).</p>
            </section>
            <section class="card" id="docs">
            <h2>Docs</h2>
            <p>Each API's part of <a href="/llms.txt">/llms.txt</a>, generated from this server's configuration:</p>
            <ul>
            \(docs)
            </ul>
            <p>The operator's documents are in the source tree's <code>docs/</code> folder.</p>
            </section>
            """
        return main
    }
}

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
/// `#link-inbox`, `#link-owner`, `#link-openapi`, `#link-demo`), `#start` (the first commands), `#docs`; the demo
/// below starts at `#demo`.
enum LandingPage {
    /// The landing sections for a server whose public base URL is `baseURL`, for the demo page at `/`.
    static func landing(baseURL: String) -> RemotePageLanding {
        RemotePageLanding(
            title: "Postern", lead: "\(PosternIntro.summary) \(baseURL)", sections: sections(baseURL: baseURL))
    }

    /// The sections, every value escaped.
    static func sections(baseURL: String) -> HTML {
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

import HTTP1
import ServerKit

/// The page at the base path (`/mailpit/`), where Mailpit serves its web UI. Postern has no Mailpit UI of its own, so
/// the page says where each thing a Mailpit user looks for is: the API and how it takes a credential, the client
/// libraries' base URL, the events socket, the web inbox's view of every stored message (`postern web link --all`)
/// and the documentation. It shows no mail and needs no credential.
///
/// Ids (the tests find them): `#api`, `#credential`, `#clients`, `#browse`, `#docs`.
extension MailpitAPI {
    /// Adds `GET {base}/` and `GET {base}` (the same page).
    func registerPage(on router: inout ContextRouter, base: String) {
        let page = HTMLPage.response(.ok, Self.page(base: base))
        for path in [base, base + "/"] {
            router.add(.GET, path, .immediate { _, _, _ in page })
        }
    }

    /// The page for the API mounted at `base`, every value escaped.
    static func page(base: String) -> HTML {
        let api = base + "/api/v1"
        let main: HTML = """
            <section class="card" id="api">
            <h2>Mailpit's API, no Mailpit UI</h2>
            <p>This server answers Mailpit's API v1 at <a href="\(api)/messages"><code>\(api)</code></a> over its one
            mail store, and its events at <code>\(base)/api/events</code> (a WebSocket). There is no Mailpit web
            interface here: read mail in Postern's web inbox instead (below).</p>
            </section>
            <section class="card" id="credential">
            <h2>A credential on every request</h2>
            <p>The operator's token (<code>POSTERN_OPERATOR_TOKEN</code>) sees every address's mail; a Pro user's API
            token (<code>tm_pro_…</code>) sees that user's SMTP sandbox. Send it as <code>Authorization: Bearer
            TOKEN</code>, or as HTTP Basic's password with any user name.</p>
            </section>
            <section class="card" id="clients">
            <h2>Clients</h2>
            <p>Give a Mailpit client this server's address and <code>\(base)</code> as its base URL. The Python
            <code>mailpit-api-client</code> takes the token in the URL:
            <code>API("https://any:TOKEN@your-host\(base)")</code>.</p>
            </section>
            <section class="card" id="browse">
            <h2>Every message in a browser</h2>
            <p>On the server, <code>postern web link --all</code> prints a one-time link that opens the web inbox's
            read-only view of every mailbox holding mail (the catch-all and each Pro sandbox included), updated live;
            <code>postern web link --address ADDRESS</code> opens one mailbox. The web inbox is at
            <a href="/inbox"><code>/inbox</code></a>.</p>
            </section>
            <section class="card" id="docs">
            <h2>Documentation</h2>
            <p><code>docs/mailpit.md</code> in Postern's source says what matches Mailpit and what differs; the guide
            for this server is <a href="/llms.txt"><code>/llms.txt</code></a>.</p>
            </section>
            """
        return PageFrame(title: "Mailpit API").document(main: main)
    }
}

import HTTP1

/// What every server-rendered page shares: one stylesheet, and the headers that keep a page out of frames, caches and
/// other origins' forms (the remote-hash page, the owner pages, the authorization server's sign-in and consent).
public enum HTMLPage {
    /// A page response: `Cache-Control: no-store`, `policy` (by default ``ContentSecurityPolicy/page``: only inline
    /// style and same-origin form posts, `frame-ancestors 'none'`), `X-Frame-Options: DENY`, no referrer.
    public static func response(
        _ status: HTTPStatus, _ html: HTML, policy: ContentSecurityPolicy = .page, setCookies: [String] = []
    ) -> HTTPResponse {
        var response = HTTPResponse.html(status, html.text)
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        response.setPolicy(policy)
        response.headers.replaceOrAdd("X-Frame-Options", "DENY")
        response.headers.replaceOrAdd("Referrer-Policy", "no-referrer")
        for cookie in setCookies { response.headers.add("Set-Cookie", cookie) }
        return response
    }

    /// A 303 to `location` (a browser follows it with GET), `Cache-Control: no-store`.
    public static func redirect(to location: String, setCookies: [String] = []) -> HTTPResponse {
        var response = HTTPResponse(status: .seeOther)
        response.headers.replaceOrAdd("Location", location)
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        for cookie in setCookies { response.headers.add("Set-Cookie", cookie) }
        return response
    }

    /// (``PageFrame`` only.) A whole document in the frame every page shares: the head (charset, viewport, no referrer,
    /// "`title` · Postern", the shared stylesheet then `css`), then header, main and footer.
    /// - Parameters:
    ///   - title: the page title, plain text (escaped here).
    ///   - css: the page's own style rules, after the shared ones.
    ///   - header: the header's content.
    ///   - main: the main content.
    ///   - footer: the footer's content.
    static func document(
        title: String, css: String = "", header: HTML, main: HTML, footer: HTML = "Postern"
    ) -> HTML {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>\(title == "Postern" ? title : title + " · Postern")</title>
        <style>\(HTML(unsafe: Self.css + css))</style>
        </head>
        <body>
        <header>\(header)</header>
        <main>
        \(main)
        </main>
        <footer>\(footer)</footer>
        </body>
        </html>

        """
    }

    /// The shared stylesheet: the page's own, then the notices' (``PageNotice``) and the buttons' (``ButtonStyle``).
    public static let css = base + PageNotice.css + ButtonStyle.css

    private static let base = """
        :root{--bg:#f6f5f2;--card:#fff;--ink:#1d232b;--muted:#5b6570;--accent:#2f5d8a;--ok:#1f7a4d;--bad:#b3261e;
        --line:#e2e0da;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
        *{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--ink);line-height:1.5}
        header,main,footer{max-width:72rem;margin:0 auto;padding:0 1.25rem}header{padding-top:2.5rem}
        h1{margin:0 0 .25rem;font-size:1.9rem;letter-spacing:-.01em}h2{margin-top:0;font-size:1.2rem}
        h3{font-size:.95rem;margin:.75rem 0 .25rem;color:var(--muted)}.lead{color:var(--muted);max-width:44rem}
        .card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.25rem 1.5rem;
        margin:1rem 0;box-shadow:0 1px 2px rgba(0,0,0,.04)}
        .split{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}.split>.card{margin:0}
        label{display:block;font-weight:600;font-size:.9rem;margin:.75rem 0 .25rem}
        input,textarea{width:100%;padding:.55rem .7rem;border:1px solid #c9c6bd;border-radius:8px;font:inherit;background:#fff}
        input:focus,textarea:focus{outline:2px solid var(--accent);outline-offset:1px}
        button{margin-top:1rem;background:var(--accent);color:#fff;border:0;border-radius:8px;padding:.6rem 1.2rem;
        font:inherit;font-weight:600;cursor:pointer}button:hover{filter:brightness(1.1)}
        pre,textarea,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
        pre{background:#f3f2ee;border:1px solid var(--line);border-radius:8px;padding:.75rem;overflow-x:auto;white-space:pre-wrap;
        word-break:break-all}textarea{word-break:break-all}
        .result{border-color:#b9dcc8}.hint{color:var(--muted);font-size:.9rem}
        table{width:100%;border-collapse:collapse;font-size:.9rem}th,td{text-align:left;padding:.45rem .5rem;
        border-bottom:1px solid var(--line);vertical-align:top}footer{color:var(--muted);font-size:.85rem;padding:2rem 1.25rem}
        a{color:var(--accent)}
        """
}

import BrowserPages
import CustomDomains
import DNS
import ServerKit

/// `/owner/domains`: an owner's custom domains, the records to publish, verification, and inboxes on a verified domain
/// (Atomic custom domains). Every interpolated value is escaped.
struct OwnerDomainsPage {
    var owner: Owner
    var csrfToken: String
    var domains: [DomainClaim]
    var mxHost: String
    /// Days a claim may stay pending.
    var verificationDays: Int64 = 7
    var notice: PageNotice?
    var error: String?
    /// The last check of one domain, shown beside its records.
    var check: (id: String, result: DomainOwnershipCheck)?
    /// Each domain's DKIM records (`_domainkey` TXT), by domain id; a domain without any shows none.
    var keyRecords: [String: [SigningKeyRecord]] = [:]
    /// An inbox just created: its address and API key, shown this once.
    var created: (address: String, apiKey: String)?
    /// What was typed in the add form, kept after an error.
    var typedDomain = ""

    func render() -> HTML {
        var main = HTML.notice(notice) + HTML.notice(error, .error)
        // The way back to the inboxes is the header's (OwnerPageShell's nav, with the web inbox's link).
        if let created {
            main += """
                <section class="card result" id="created-inbox">
                <h2>Inbox created</h2>
                <p>Address <code id="key-address">\(created.address)</code>. Its API key is shown this once: copy it now.</p>
                <pre id="api-key" class="key">\(created.apiKey)</pre>
                </section>

                """
        }
        main += """
            <section class="card" id="add-domain">
            <h2>Add a domain</h2>
            <p class="hint">Publish a TXT record with the token we give you at the domain's apex, then verify: the TXT
            token alone proves the domain is yours. \(mxSentence())
            The DKIM records (TXT at <code>&lt;selector&gt;._domainkey</code>) publish the keys mail from the domain is
            signed with, so that receivers can check it; SPF (TXT at the apex) says which hosts may send for the domain
            (with a relay, use your provider's <code>include:</code> instead of <code>mx</code>) and DMARC (TXT at
            <code>_dmarc</code>) what receivers do with mail that fails both. Verification reports each of them, and
            each row keeps what the last verification found, but ownership needs only the TXT token.
            Verification can be run again at any time; a domain not verified within
            \(verificationDays) days is removed.</p>
            <form method="post" action="/owner/domains" id="add-domain-form">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
            <label for="domain">Domain</label>
            <input id="domain" name="domain" required placeholder="example.com" value="\(typedDomain)">
            <button type="submit">Add domain</button>
            </form>
            </section>

            """
        for domain in domains { main += section(domain) }
        return OwnerPageShell.document(title: "Your domains", main: main, owner: owner, csrfToken: csrfToken)
    }

    /// Whether the operator named a mail host the internet can reach (`POSTERN_MX_HOST`, else the public URL's host):
    /// an MX naming `localhost` or a `.localhost` name would bring no mail here.
    var mxHostIsSet: Bool {
        let host = mxHost.lowercased()
        return !host.isEmpty && host != "localhost" && !host.hasSuffix(".localhost") && host != "127.0.0.1"
            && host != "::1"
    }

    private func mxSentence() -> HTML {
        guard mxHostIsSet else {
            return """
                <span id="mx-host-unset" class="bad">This server's mail host is not set yet: the operator must set \
                POSTERN_MX_HOST before an MX record can bring a domain's mail here.</span>
                """
        }
        return "The MX record naming <code id=\"mx-host\">\(mxHost)</code> brings its mail here."
    }

    private func mxValue() -> HTML {
        mxHostIsSet
            ? "<code>10 \(mxHost)</code>"
            : "<span class=\"mx-unset\">the operator must set POSTERN_MX_HOST first</span>"
    }

    /// A row of the records table; `found` is the last check's state of it (nil: never looked up).
    private func row(_ type: String, host: HTML, value: HTML, found: Bool?, kind: String) -> HTML {
        let ok: HTML = " <span class=\"ok\">found</span>"
        let bad: HTML = " <span class=\"bad\">not found</span>"
        let mark = found.map { $0 ? ok : bad } ?? .empty
        return """
            <tr class="\(kind)"><td data-label="Type">\(type)</td><td data-label="Host">\(host)</td>\
            <td data-label="Value">\(value)\(mark)</td></tr>

            """
    }

    private func section(_ domain: DomainClaim) -> HTML {
        let checked = check?.id == domain.id ? check?.result : nil
        // Each row's last state is kept with the claim; a claim checked before that was kept shows its MX as before.
        let states = domain.recordStates
        let mx = states?.mx ?? (domain.verifiedAt == nil ? nil : domain.mxConfigured)
        let policies = SendingPolicyRecord.all(for: domain.domain).map { policy in
            (policy, states?.published(policy.kind))
        }
        let status = domain.verifiedAt == nil ? "pending" : "verified"
        var html: HTML = """
            <section class="card domain" id="domain-\(domain.id)" data-domain="\(domain.domain)">
            <h2>\(domain.domain) <small class="status">\(status)</small></h2>
            <table>
            <thead><tr><th>Type</th><th>Host</th><th>Value</th></tr></thead>
            <tbody>

            """
        html += row(
            "TXT", host: "\(domain.domain)", value: "<code class=\"txt-value\">\(domain.verifyToken)</code>",
            found: states?.txt, kind: "token")
        html += row("MX", host: "\(domain.domain)", value: mxValue(), found: mx, kind: "mx")
        for (policy, found) in policies where policy.kind == .spf {
            html += row(
                "TXT", host: "\(policy.name)", value: "<code class=\"spf-value\">\(policy.value)</code>", found: found,
                kind: "spf")
        }
        for record in keyRecords[domain.id] ?? [] {
            html += row(
                "TXT", host: "<code class=\"dkim-name\">\(record.name)</code>",
                value: "<code class=\"dkim-value\">\(record.value)</code>", found: states?.dkim[record.name],
                kind: "dkim")
        }
        for (policy, found) in policies where policy.kind == .dmarc {
            html += row(
                "TXT", host: "<code class=\"dmarc-name\">\(policy.name)</code>",
                value: "<code class=\"dmarc-value\">\(policy.value)</code>", found: found, kind: "dmarc")
        }
        html += """
            </tbody>
            </table>

            """
        if let message = checked?.message { html += "<p class=\"hint check-message\">\(message)</p>\n" }
        html += """
            <form method="post" action="/owner/domains/\(domain.id)/verify" class="inline">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
            <button type="submit" class="verify">Verify</button>
            </form>
            <form method="post" action="/owner/domains/\(domain.id)/delete" class="inline">
            <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
            <button type="submit" class="delete danger">Delete</button>
            </form>

            """
        if domain.verifiedAt != nil {
            html += """
                <form method="post" action="/owner/domains/\(domain.id)/inboxes" class="create-inbox">
                <input type="hidden" name="\(OwnerBrowser.csrfField)" value="\(csrfToken)">
                <label>New inbox <input name="local_part" required placeholder="support"> @\(domain.domain)</label>
                <button type="submit">Create inbox</button>
                </form>

                """
        }
        return html + "</section>\n"
    }
}

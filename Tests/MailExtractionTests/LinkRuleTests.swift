import Testing

@testable import MailExtraction

/// Known answers for the links of a message and their kinds (issue 85).
@Suite("Extraction: links and their kinds")
struct LinkRuleTests {
    typealias F = ExtractionFixtures

    private func kinds(_ links: [ExtractedLink]) -> [String: LinkKind] {
        Dictionary(links.map { ($0.url, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    @Test("kinds from the visible text, in several languages")
    func byText() {
        let html = """
            <a href="https://a.example/t/8f2k3j4h5g6d">Verify email address</a>
            <a href="https://a.example/t/9a8s7d6f5g4h">Sign in to Acme</a>
            <a href="https://a.example/t/1q2w3e4r5t6y">Reset your password</a>
            <a href="https://a.example/u">Unsubscribe</a> <a href="https://a.example/privacy">Privacy</a>
            <a href="https://b.example/x/0o9i8u7y6t5r">Passwort zurücksetzen</a>
            <a href="https://b.example/x/5t4r3e2w1q0p">Confirmar mi cuenta</a>
            <a href="https://b.example/x/2b3n4m5k6l7j">Se connecter</a>
            """
        let found = kinds(F.links(html: html))
        #expect(found["https://a.example/t/8f2k3j4h5g6d"] == .verify)
        #expect(found["https://a.example/t/9a8s7d6f5g4h"] == .signIn)
        #expect(found["https://a.example/t/1q2w3e4r5t6y"] == .reset)
        #expect(found["https://a.example/u"] == .unsubscribe)
        #expect(found["https://a.example/privacy"] == .other)
        #expect(found["https://b.example/x/0o9i8u7y6t5r"] == .reset)
        #expect(found["https://b.example/x/5t4r3e2w1q0p"] == .verify)
        #expect(found["https://b.example/x/2b3n4m5k6l7j"] == .signIn)
    }

    @Test("a tracking redirect is kept as sent; its kind comes from its text or its encoded target")
    func trackingRedirects() {
        let target = "https://click.mail.example/ls/click?upn=https%3A%2F%2Fapp.example%2Fmagic%3Ftoken%3Dab12cd34ef56"
        let links = F.links(
            html: #"<a href="\#(target)">Click here</a> <a href="https://t.example/c/x1y2z3w4v5u6t7">Log in now</a>"#)
        #expect(kinds(links)[target] == .signIn)
        #expect(kinds(links)["https://t.example/c/x1y2z3w4v5u6t7"] == .signIn)
    }

    @Test("a verify, sign-in or reset link without a token is other (the sign-in page)")
    func needsToken() {
        #expect(
            kinds(F.links(html: #"<a href="https://acme.example/login">Log in</a>"#))["https://acme.example/login"]
                == .other)
    }

    @Test("a bare URL takes its kind from the words around it; links are de-duplicated, actions first")
    func bareURLs() {
        let text = """
            To verify your email, open this link:
            https://acme.example/e/7d8f9g0h1j2k3l

            Unsubscribe: https://acme.example/unsub/77
            Visit https://acme.example/blog
            """
        let html =
            #"<a href="https://acme.example/blog">Blog</a><a href="https://acme.example/e/7d8f9g0h1j2k3l">Verify</a>"#
        let links = F.links(text: text, html: html)
        #expect(
            links.map(\.url) == [
                "https://acme.example/e/7d8f9g0h1j2k3l", "https://acme.example/blog", "https://acme.example/unsub/77",
            ])
        #expect(links.map(\.kind) == [.verify, .other, .unsubscribe])
        #expect(links[1].text == "Blog")
    }

    @Test(
        "a link whose text is its URL, or a bare URL under the sentence that introduces it, takes that sentence's kind")
    func introducedURLs() {
        let reset = "https://blog.example/wp-login.php?action=rp&key=Zk6T11D2vXxTW6OI&login=agent7"
        let text = "To reset your password, visit the following address:\n\n\(reset)\n\nThanks."
        #expect(F.links(text: text).map(\.kind) == [.reset])
        let verify = "https://app.example/__/auth/action?mode=verifyEmail&oobCode=B0hmyAS7EnsKcsOf"
        let html = #"<p>Follow this link to verify your email address.</p><p><a href="\#(verify)">\#(verify)</a></p>"#
        #expect(F.links(html: html).map(\.kind) == [.verify])
    }

    @Test("a text that says something else keeps its own words, which name no kind, whatever the words around it")
    func sayingSomethingElse() {
        let html = """
            <p>Members get early access. Sign in to see your picks.</p>
            <a href="https://t.example/c/Zx81Kq93Lm20Pq">See my picks</a>
            <p>Privacy | <a href="https://x.example/privacy">Privacy</a> | <a href="https://x.example/u">Unsubscribe</a></p>
            """
        let found = kinds(F.links(html: html))
        #expect(found["https://t.example/c/Zx81Kq93Lm20Pq"] == .other)
        #expect(found["https://x.example/privacy"] == .other)
        #expect(found["https://x.example/u"] == .unsubscribe)
    }

    @Test("a link about an order is other, whatever its words")
    func orderLinks() {
        let html = #"<a href="https://shop.example/orders/12345678901234">View order confirmation</a>"#
        #expect(F.links(html: html).map(\.kind) == [.other])
    }
}

import Testing

@testable import WebInbox

/// The HTML part made ready for its frame: pure text in, text out.
@Suite("Web inbox: the HTML part")
struct InboxHTMLTests {
    @Test("cid: references point at the inline-image route, in any case")
    func cid() {
        let part = InboxHTML(#"<img src="cid:a@b"><img SRC='CID:c@d'>"#, cidPrefix: "/r/sig/")
        #expect(part.html == #"<img src="/r/sig/a@b"><img src="/r/sig/c@d">"#)
        #expect(!part.remoteContent)
    }

    @Test("the frame's document: sanitized, cid: pointed at the signed route, and remote content still noticed")
    func inboxHTML() {
        let part = InboxHTML(
            #"<meta http-equiv="refresh" content="0"><img src="cid:a@b"><img src="https://t.example/p.gif">"#,
            cidPrefix: "/r/sig/")
        #expect(part.html == #"<img src="/r/sig/a@b"><img>"#)
        #expect(part.remoteContent)
    }

    @Test("meta elements are dropped (a refresh would navigate the frame)")
    func meta() {
        let part = InboxHTML(#"<META http-equiv="refresh" content="0;url=https://x">after"#, cidPrefix: "/r/")
        #expect(part.html == "after")
    }

    @Test("remote content is noticed in src, srcset, url(), background and <link>; a link to click is not remote")
    func remote() {
        for html in [
            #"<img src="https://t.example/p.gif">"#, #"<img src = 'http://t.example/p.gif'>"#,
            #"<img srcset="//t.example/p.gif 2x">"#, #"<div style="background:url( 'https://t.example/b')">"#,
            #"<td background="http://t.example/b.png">"#, #"<link rel=stylesheet href="x.css">"#,
        ] {
            #expect(InboxHTML(html, cidPrefix: "/r/").remoteContent, "\(html)")
        }
        #expect(!InboxHTML(#"<a href="https://example.com">a link</a><img src="cid:x">"#, cidPrefix: "/r/").remoteContent)
    }

    @Test("an inline-image signature opens that message's images only, until it expires")
    func signature() {
        let signer = InlineImageSignature(key: Array(repeating: 7, count: 32))
        let signature = signer.sign(mailbox: "a@x", id: "m1", expires: 100)
        #expect(signer.verify(signature, mailbox: "a@x", id: "m1", now: 99))
        #expect(!signer.verify(signature, mailbox: "a@x", id: "m1", now: 100))
        #expect(!signer.verify(signature, mailbox: "a@x", id: "m2", now: 99))
        #expect(!signer.verify(signature, mailbox: "b@x", id: "m1", now: 99))
        #expect(!signer.verify("200." + signature.split(separator: ".")[1], mailbox: "a@x", id: "m1", now: 99))
    }
}

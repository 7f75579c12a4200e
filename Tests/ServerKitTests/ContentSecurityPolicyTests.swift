import HTTP1
import Testing

@testable import ServerKit

@Suite("ContentSecurityPolicy: the pages' policies as values, written as the hand-kept strings were")
struct ContentSecurityPolicyTests {
    @Test("page, script, frame (with scripts), sandbox and the framed document: the exact header values")
    func knownAnswers() throws {
        #expect(
            ContentSecurityPolicy.page.description
                == "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; "
                + "base-uri 'none'")
        #expect(
            ContentSecurityPolicy.script(.self).description
                == "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; "
                + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        #expect(
            ContentSecurityPolicy.frame(.self).description
                == "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; form-action 'self'; "
                + "frame-ancestors 'none'; base-uri 'none'")
        #expect(ContentSecurityPolicy.sandbox.description == "default-src 'none'; sandbox")
        let images = try #require(ContentSecurityPolicy.Source.url("https://mail.test/inbox/m/a%40b/1/cid/"))
        #expect(
            ContentSecurityPolicy.framedDocument(images: images).description
                == "default-src 'none'; img-src https://mail.test/inbox/m/a%40b/1/cid/; style-src 'unsafe-inline'; "
                + "form-action 'none'; frame-ancestors 'self'; base-uri 'none'; sandbox allow-same-origin")
        #expect(
            ContentSecurityPolicy.frame(.self).scripts(from: .self).description
                == "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; frame-src 'self'; "
                + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        #expect(ContentSecurityPolicy.framedDocument(images: nil).description.contains("img-src 'none';"))
    }

    @Test("form-action widened by one checked origin; a source that could end or widen a directive is refused")
    func sources() throws {
        let app = try #require(ContentSecurityPolicy.Source.url("http://127.0.0.1:9999"))
        #expect(
            ContentSecurityPolicy.page.formAction(adding: app).description
                == "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:9999; "
                + "frame-ancestors 'none'; base-uri 'none'")
        for hostile in ["", "a.test; script-src *", "a.test b.test", "*", "'unsafe-eval'", "a.test,b", "a\u{0}b"] {
            #expect(ContentSecurityPolicy.Source.url(hostile) == nil, "\(hostile)")
        }
    }

    @Test("HTMLPage.response sends the page policy unless given another")
    func response() {
        let page = HTMLPage.response(.ok, "<p>x</p>")
        #expect(page.headers["Content-Security-Policy"] == ContentSecurityPolicy.page.description)
        let list = HTMLPage.response(.ok, "<p>x</p>", policy: .script(.self))
        #expect(list.headers["Content-Security-Policy"] == ContentSecurityPolicy.script(.self).description)
    }
}

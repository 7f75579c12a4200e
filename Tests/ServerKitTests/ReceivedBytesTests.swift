import HTTP1
import Testing

@testable import ServerKit

@Suite("ReceivedBytes: an outsider's bytes answered inert, whatever type they name")
struct ReceivedBytesTests {
    static func headers(_ type: String, _ presentation: ReceivedBytes.Presentation) -> HTTPHeaders {
        ReceivedBytes.response(Array("<svg onload=alert(1)>".utf8), contentType: type, presentation).headers
    }

    @Test("HTML and SVG asked inline are attachments; a raster image stays inline; every answer nosniff and sandboxed")
    func disposition() {
        for type in ["text/html", "image/svg+xml", "Image/SVG+XML; charset=utf-8", "application/xhtml+xml"] {
            let headers = Self.headers(type, .inline(filename: "x"))
            #expect(headers["Content-Disposition"] == #"attachment; filename="x""#, "\(type)")
        }
        for type in ["image/png", "IMAGE/JPEG", "image/gif; name=a.gif", "image/webp"] {
            #expect(Self.headers(type, .inline(filename: nil))["Content-Disposition"] == "inline", "\(type)")
        }
        #expect(Self.headers("image/png", .attachment(filename: nil))["Content-Disposition"] == "attachment")
        let presentations: [ReceivedBytes.Presentation] = [
            .inline(filename: nil), .attachment(filename: "a"), .sourceText,
        ]
        for presentation in presentations {
            let headers = Self.headers("text/html", presentation)
            #expect(headers["X-Content-Type-Options"] == "nosniff")
            #expect(headers["Content-Security-Policy"] == "default-src 'none'; sandbox")
            #expect(headers["Cache-Control"] == "no-store")
        }
    }

    @Test("a source is text/plain inline; a type that is no media type is application/octet-stream")
    func types() {
        let source = Self.headers("text/html", .sourceText)
        #expect(source["Content-Type"] == "text/plain; charset=utf-8")
        #expect(source["Content-Disposition"] == "inline")
        #expect(Self.headers("message/rfc822", .attachment(filename: nil))["Content-Type"] == "message/rfc822")
        for bad in ["", "text", "text/html\r\nX-Evil: 1", "a/b/c", "text /html", "(x)/y"] {
            #expect(Self.headers(bad, .inline(filename: nil))["Content-Type"] == "application/octet-stream", "\(bad)")
        }
    }

    @Test("a filename keeps printable ASCII, quotes and slashes as _, and says anything else in filename*")
    func filenames() {
        #expect(ReceivedBytes.parameter(#"evil".html"#) == #"; filename="evil_.html""#)
        #expect(ReceivedBytes.parameter("a/..\\b") == #"; filename="a_.._b""#)
        #expect(ReceivedBytes.parameter("é.txt") == #"; filename="_.txt"; filename*=UTF-8''%C3%A9.txt"#)
        #expect(ReceivedBytes.parameter("a\r\nb") == #"; filename="a__b"; filename*=UTF-8''ab"#)
        #expect(ReceivedBytes.parameter(nil) == "")
    }
}

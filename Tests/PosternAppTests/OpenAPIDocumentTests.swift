import Foundation
import Testing

@testable import PosternApp

/// What `/openapi.json` says of the doors beside the three auth APIs: every Mailpit, Mailosaur, mail.tm and mail.cx
/// route, and IMAP and POP3 in its description.
@Suite("/openapi.json: the mail doors")
struct OpenAPIDocumentTests {
    /// The served document's paths, each with its methods.
    static func paths(mailpitPath: String?, mailosaurPath: String? = "/mailosaur") throws -> [String: [String]] {
        let bytes = try OpenAPIDocument.serving(
            baseURL: "http://doc.test", mailpitPath: mailpitPath, mailosaurPath: mailosaurPath)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        return paths.mapValues { $0.keys.sorted() }
    }

    @Test("every route of the Mailpit API is described, under the path it is mounted at; none when it is off")
    func mailpitRoutes() throws {
        let mounted = try Self.paths(mailpitPath: "/mailpit")
        let routes: [(String, String)] = [
            ("get", "/api/v1/messages"), ("put", "/api/v1/messages"), ("delete", "/api/v1/messages"),
            ("get", "/api/v1/search"), ("delete", "/api/v1/search"), ("post", "/api/v1/send"), ("get", "/api/v1/tags"),
            ("put", "/api/v1/tags"), ("put", "/api/v1/tags/{Tag}"), ("delete", "/api/v1/tags/{Tag}"),
            ("get", "/api/v1/message/{ID}"), ("get", "/api/v1/message/{ID}/headers"),
            ("get", "/api/v1/message/{ID}/raw"), ("get", "/api/v1/message/{ID}/part/{PartID}"),
            ("get", "/api/v1/message/{ID}/part/{PartID}/thumb"), ("get", "/api/v1/message/{ID}/html-check"),
            ("get", "/api/v1/message/{ID}/sa-check"), ("get", "/api/v1/message/{ID}/link-check"),
            ("post", "/api/v1/message/{ID}/release"), ("get", "/api/v1/info"), ("get", "/api/v1/webui"),
            ("get", "/api/v1/chaos"), ("put", "/api/v1/chaos"), ("get", "/view/{file}"), ("get", "/api/events"),
        ]
        for (method, path) in routes {
            #expect(mounted["/mailpit" + path]?.contains(method) == true, "\(method) /mailpit\(path)")
        }
        let moved = try Self.paths(mailpitPath: "/tools/mailpit")
        #expect(moved["/tools/mailpit/api/v1/messages"] != nil && moved["/mailpit/api/v1/messages"] == nil)
        let off = try Self.paths(mailpitPath: nil)
        #expect(!off.keys.contains { $0.hasPrefix("/mailpit") })
        #expect(off["/mailtm/messages"] != nil && off["/mailcx/v1/inbox/{address}"] != nil)
    }

    @Test("every route of Mailosaur's API is described, under the path it is mounted at; none when it is off")
    func mailosaurRoutes() throws {
        let mounted = try Self.paths(mailpitPath: "/mailpit")
        let routes: [(String, String)] = [
            ("get", "/api/servers"), ("get", "/api/servers/{id}"), ("get", "/api/messages"),
            ("delete", "/api/messages"), ("post", "/api/messages/search"), ("post", "/api/messages/await"),
            ("get", "/api/messages/{id}"), ("delete", "/api/messages/{id}"), ("get", "/api/files/email/{id}"),
            ("get", "/api/files/attachments/{id}"),
        ]
        for (method, path) in routes {
            #expect(mounted["/mailosaur" + path]?.contains(method) == true, "\(method) /mailosaur\(path)")
        }
        let moved = try Self.paths(mailpitPath: "/mailpit", mailosaurPath: "/tools/mailosaur")
        #expect(moved["/tools/mailosaur/api/servers"] != nil && moved["/mailosaur/api/servers"] == nil)
        #expect(moved["/mailpit/api/v1/messages"] != nil, "Mailpit's mount is its own")
        let off = try Self.paths(mailpitPath: "/mailpit", mailosaurPath: nil)
        #expect(!off.keys.contains { $0.hasPrefix("/mailosaur") } && off["/mailpit/api/v1/messages"] != nil)
    }

    @Test("mail.tm's and mail.cx's routes are described; the description names IMAP, POP3 and the three mail APIs")
    func otherDoors() throws {
        let paths = try Self.paths(mailpitPath: "/mailpit")
        for path in ["/mailtm/token", "/mailtm/messages/{id}", "/mailtm/.well-known/mercure", "/mailcx/v1/config"] {
            #expect(paths[path] != nil, "\(path)")
        }
        for word in ["IMAP", "POP3", "Mailpit", "mail.tm", "mail.cx"] {
            #expect(PosternIntro.text.contains(word), "\(word)")
        }
    }
}

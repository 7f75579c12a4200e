import Testing

@testable import HTTP1

@Suite("Router")
struct RouterTests {
    func router() -> Router {
        var router = Router()
        router.add(.GET, "/healthz", .immediate { _, _ in .text(.ok, "health") })
        router.add(.GET, "/api/accounts/{id}", .immediate { _, p in .text(.ok, "get \(p["id"] ?? "")") })
        router.add(.DELETE, "/api/accounts/{id}", .immediate { _, p in .text(.noContent, "del \(p["id"] ?? "")") })
        router.add(
            .PUT, "/api/accounts/{id}/reset-password", bodyLimit: 128, .immediate { _, _ in .text(.ok, "reset") })
        router.add(.POST, "/api/accounts", .immediate { _, _ in .text(.created, "create") })
        router.add(.GET, "/api/accounts/me", .immediate { _, _ in .text(.ok, "me") })
        router.add(.GET, "/a/{x}/b/{y}", .immediate { _, p in .text(.ok, "\(p["x"]!)-\(p["y"]!)") })
        return router
    }

    func run(_ match: RouteMatch<RouteHandler>, _ request: HTTPRequest = HTTPRequest(method: .GET, target: "/")) -> String? {
        guard case .found(let route, let parameters) = match, case .immediate(let handler) = route.handler else {
            return nil
        }
        return String(decoding: handler(request, parameters).body, as: UTF8.self)
    }

    @Test("static and templated paths match with captured parameters")
    func matches() {
        let r = router()
        #expect(run(r.match(method: .GET, path: "/healthz")) == "health")
        #expect(run(r.match(method: .GET, path: "/api/accounts/42")) == "get 42")
        #expect(run(r.match(method: .DELETE, path: "/api/accounts/abc")) == "del abc")
        #expect(run(r.match(method: .GET, path: "/a/1/b/2")) == "1-2")
        #expect(run(r.match(method: .POST, path: "/api/accounts")) == "create")
    }

    @Test("the first template that matches decides: a literal segment added first is never taken for a parameter")
    func firstTemplateDecides() {
        var r = Router()
        r.add(.PUT, "/m/{id}/read", .immediate { _, _ in .text(.ok, "read all") })
        r.add(.GET, "/m/{id}/{message}", .immediate { _, p in .text(.ok, "message \(p["message"] ?? "")") })
        #expect(run(r.match(method: .PUT, path: "/m/1/read")) == "read all")
        #expect(run(r.match(method: .GET, path: "/m/1/other")) == "message other")
        guard case .methodNotAllowed(let allowed) = r.match(method: .GET, path: "/m/1/read") else {
            Issue.record("GET of the literal path should be 405")
            return
        }
        #expect(allowed == [.PUT])
    }

    @Test("a static route wins over a template covering the same path, for its Allow too")
    func staticFirst() throws {
        #expect(run(router().match(method: .GET, path: "/api/accounts/me")) == "me")
        // Another method of the literal path is not handed to the template (`DELETE /api/accounts/{id}`).
        guard case .methodNotAllowed(let allowed) = router().match(method: .DELETE, path: "/api/accounts/me") else {
            Issue.record("DELETE of the literal path should be 405")
            return
        }
        #expect(allowed == [.GET, .HEAD])
    }

    @Test("parameters are percent-decoded")
    func decodedParameters() {
        #expect(run(router().match(method: .GET, path: "/api/accounts/a%20b")) == "get a b")
    }

    @Test("unknown paths, empty segments and trailing slashes are 404")
    func notFound() {
        let r = router()
        for path in ["/nope", "/api/accounts/", "/api/accounts//", "/api/accounts/1/2", "/healthz/", ""] {
            guard case .notFound = r.match(method: .GET, path: path) else {
                Issue.record("expected 404 for \(path)")
                continue
            }
        }
    }

    @Test("a known path with another method is 405 listing the allowed methods")
    func methodNotAllowed() {
        guard case .methodNotAllowed(let allowed) = router().match(method: .PATCH, path: "/api/accounts/7") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.GET, .HEAD, .DELETE])
        guard case .methodNotAllowed(let post) = router().match(method: .GET, path: "/api/accounts") else {
            Issue.record("expected 405")
            return
        }
        #expect(post == [.POST])
    }

    @Test("HEAD is answered by the GET route")
    func headFallsBackToGet() {
        #expect(run(router().match(method: .HEAD, path: "/healthz")) == "health")
        guard case .methodNotAllowed = router().match(method: .HEAD, path: "/api/accounts") else {
            Issue.record("HEAD on a POST-only path must be 405")
            return
        }
    }

    @Test("per-route body limits are kept")
    func bodyLimit() {
        guard case .found(let route, _) = router().match(method: .PUT, path: "/api/accounts/1/reset-password") else {
            Issue.record("expected a route")
            return
        }
        #expect(route.bodyLimit == 128)
        #expect(router().routes.count == 7)
    }

    @Test("a table holds any handler type and finds it by method and path")
    func otherHandlerType() {
        var table = RouteTable<String>()
        table.add(.GET, "/items/{id}", "item")
        table.add(.POST, "/items", bodyLimit: 64, "create")
        guard case .found(let route, let parameters) = table.match(method: .GET, path: "/items/7") else {
            Issue.record("expected a route")
            return
        }
        #expect(route.handler == "item")
        #expect(parameters["id"] == "7")
        #expect(table.bodyLimit(method: .POST, path: "/items") == 64)
        guard case .methodNotAllowed(let allowed) = table.match(method: .DELETE, path: "/items/7") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.GET, .HEAD])
    }
}

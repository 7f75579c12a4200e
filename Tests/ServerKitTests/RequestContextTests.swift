import ClientAddress
import HTTP1
import ServerKit
import Testing

@Suite("Request context")
struct RequestContextTests {
    static let proxies = ClientAddressResolver(trustedProxies: ["10.0.0.0/8", "2001:db8:ffff::/48"])

    static func context(
        peer: String, forwardedFor: [String] = [], trustedProxies: ClientAddressResolver = proxies
    ) -> RequestContext {
        var headers = HTTPHeaders()
        for value in forwardedFor { headers.add("X-Forwarded-For", value) }
        let request = HTTPRequest(method: .GET, target: "/", headers: headers, remoteAddress: peer, requestID: "req-1")
        return RequestContext(request, trustedProxies: trustedProxies)
    }

    @Test("a trusted proxy's request counts against the nearest untrusted X-Forwarded-For hop")
    func trustedProxy() {
        let context = Self.context(peer: "10.0.0.2", forwardedFor: ["198.51.100.1, 192.0.2.5, 10.0.0.7"])
        #expect(context.clientAddress?.description == "192.0.2.5")
        #expect(context.clientKey == ClientAddressKey(peer: "192.0.2.5"))
        #expect(context.requestID == "req-1")
        // Several header lines are one list; an IPv6 client counts by its /64.
        let v6 = Self.context(peer: "2001:db8:ffff::1", forwardedFor: ["2001:db8:1:2::9", "10.1.1.1"])
        #expect(v6.clientKey.description == "2001:db8:1:2:0:0:0:0/64")
    }

    @Test("an untrusted peer is the client whatever its X-Forwarded-For says")
    func untrustedPeer() {
        let context = Self.context(peer: "203.0.113.9", forwardedFor: ["198.51.100.1"])
        #expect(context.clientAddress?.description == "203.0.113.9")
        #expect(context.clientKey == ClientAddressKey(peer: "203.0.113.9"))
        // With no proxy trusted at all (the default), even a private peer's header is ignored.
        let direct = RequestContext(
            HTTPRequest(
                method: .GET, target: "/", headers: ["X-Forwarded-For": "198.51.100.1"], remoteAddress: "10.0.0.2"))
        #expect(direct.clientKey == ClientAddressKey(peer: "10.0.0.2"))
    }

    @Test("a malformed X-Forwarded-For stops at the last good hop; an unparseable peer counts as its text")
    func malformed() {
        #expect(Self.context(peer: "10.0.0.2", forwardedFor: ["bogus"]).clientKey == ClientAddressKey(peer: "10.0.0.2"))
        let stopped = Self.context(peer: "10.0.0.2", forwardedFor: ["198.51.100.1, bogus, 10.0.0.3"])
        #expect(stopped.clientAddress?.description == "10.0.0.3")
        #expect(Self.context(peer: "10.0.0.2", forwardedFor: [""]).clientKey == ClientAddressKey(peer: "10.0.0.2"))
        let unknown = Self.context(peer: "", forwardedFor: ["198.51.100.1"])
        #expect(unknown.clientAddress == nil)
        #expect(unknown.clientKey.description == "")
    }

    @Test("a route handler gets the context, immediate or deferred")
    func handlers() async {
        let request = HTTPRequest(method: .GET, target: "/", remoteAddress: "192.0.2.1", requestID: "req-2")
        let context = RequestContext(request)
        let echo: @Sendable (HTTPRequest, RequestContext, RouteParameters) -> HTTPResponse = { _, context, _ in
            .text(.ok, context.clientKey.description + " " + context.requestID)
        }
        for handler in [ContextRouteHandler.immediate(echo), .deferred { echo($0, $1, $2) }] {
            let body = await handler.response(to: request, context, RouteParameters()).body
            #expect(String(decoding: body, as: UTF8.self) == "192.0.2.1 req-2")
        }
    }
}

import ClientAddress
import HTTP1
import ServerKit

extension RouteTable where Handler == ContextRouteHandler {
    /// What the route `request` matches answers, called as the server calls it; a bare 405 or 404 when none does.
    public func respond(to request: HTTPRequest, trustedProxies: ClientAddressResolver = .direct) async -> HTTPResponse
    {
        switch match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            return await route.handler.response(
                to: request, RequestContext(request, trustedProxies: trustedProxies), parameters)
        case .methodNotAllowed: return HTTPResponse(status: .methodNotAllowed)
        case .notFound: return HTTPResponse(status: .notFound)
        }
    }
}

/// A browser's side of requests sent straight through routes: forms encoded as browsers post them, and the cookies
/// the responses set sent back.
public struct RouteBrowser: Sendable {
    /// The cookies held, as the last responses set them.
    public var cookies: [String: String] = [:]
    let remoteAddress: String
    let requestID: String

    public init(remoteAddress: String = "192.0.2.9", requestID: String) {
        self.remoteAddress = remoteAddress
        self.requestID = requestID
    }

    /// Sends a request with the held cookies through `router` and keeps what the response sets.
    public mutating func send(
        _ method: HTTPMethod, _ target: String, form: [(String, String)]? = nil, json: String? = nil,
        headers extra: [(String, String)] = [], through router: ContextRouter
    ) async -> HTTPResponse {
        var headers = HTTPHeaders(extra)
        if !cookies.isEmpty {
            headers.add(
                "Cookie", cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        var body: [UInt8] = []
        if let form {
            headers.add("Content-Type", "application/x-www-form-urlencoded")
            body = Array(Self.formBody(form).utf8)
        } else if let json {
            headers.add("Content-Type", "application/json")
            body = Array(json.utf8)
        }
        let request = HTTPRequest(
            method: method, target: target, version: .http1_1, headers: headers, body: body,
            remoteAddress: remoteAddress, requestID: requestID)
        let response = await router.respond(to: request)
        for line in response.headers.values("Set-Cookie") {
            let pair = line.split(separator: ";")[0].split(
                separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            cookies[name] = value.isEmpty || line.contains("Max-Age=0") ? nil : value
        }
        return response
    }

    /// `name=value&…`, each percent-encoded.
    public static func formBody(_ fields: [(String, String)]) -> String {
        fields.map { PercentEncoding.encode($0.0) + "=" + PercentEncoding.encode($0.1) }.joined(separator: "&")
    }
}

/// Values captured by `{name}` segments of a route template, percent-decoded.
public struct RouteParameters: Sendable {
    @usableFromInline var pairs: [(name: String, value: String)]

    /// No parameters (every static route's match).
    @inlinable
    public init() {
        pairs = []
    }

    /// Creates parameters from `(name, value)` pairs.
    public init(_ pairs: [(String, String)]) {
        self.pairs = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// The value captured for `{name}`, or nil when the template has no such segment.
    public subscript(name: String) -> String? {
        for pair in pairs where pair.name == name { return pair.value }
        return nil
    }
}

/// One entry of a routes table: a method, a path template and its handler.
///
/// A class: routes never change once made, and each request carries its match inside `HTTPRoute`'s
/// existential, where a reference and the parameters fit inline but this as a struct (template, limit,
/// handler) took a new allocation per request.
public final class Route<Handler: Sendable>: Sendable {
    /// The method the route answers (`GET` routes also answer `HEAD`).
    public let method: HTTPMethod
    /// The path template, such as `/api/accounts/{id}`.
    public let template: String
    /// The body limit for this route in bytes; nil uses the server's default.
    public let bodyLimit: Int?
    /// The handler.
    public let handler: Handler

    /// Creates a route.
    public init(method: HTTPMethod, template: String, bodyLimit: Int? = nil, handler: Handler) {
        self.method = method
        self.template = template
        self.bodyLimit = bodyLimit
        self.handler = handler
    }
}

/// The outcome of looking a request up in a routes table.
public enum RouteMatch<Handler: Sendable>: Sendable {
    /// A route answers this method and path; `RouteParameters` holds its captured segments.
    case found(Route<Handler>, RouteParameters)
    /// The path exists but not for this method; `allowed` is for the `Allow` header (405).
    case methodNotAllowed(allowed: [HTTPMethod])
    /// No route has this path (404).
    case notFound
}

/// Maps method + path to a route. Templates are `/`-separated; a `{name}` segment matches any one
/// non-empty segment. `HEAD` is answered by the `GET` route unless a `HEAD` route exists.
///
/// Static templates are found among those of the path's length, compared whole (no hashing: see
/// ``LengthGroupedTable``); templated ones are tried in the order added, and the first template that matches a path decides it: its method, or 405 with its methods.
/// Add a template with a literal segment (`/messages/read`) before one with a parameter in that place
/// (`/messages/{id}`), so that the literal path is never taken for a parameter value.
///
/// The table only finds routes and never runs them, so `Handler` is whatever its user runs: HTTP1's
/// ``RouteHandler`` (see ``Router``), or an application's own handler that takes more than the request.
public struct RouteTable<Handler: Sendable>: Sendable {
    @usableFromInline enum Segment: Sendable {
        /// A segment matched byte for byte.
        case literal([UInt8])
        /// A `{name}` segment: any one non-empty segment, captured under `name`.
        case parameter(String)
    }

    @usableFromInline struct TemplateEntry: Sendable {
        @usableFromInline var segments: [Segment]
        @usableFromInline var routes: [Route<Handler>]
    }

    /// Static templates: path → routes in order added.
    @usableFromInline var staticRoutes = LengthGroupedTable<[Route<Handler>]>()
    /// Templates with parameters, in order added.
    @usableFromInline var templated: [TemplateEntry] = []

    /// Creates an empty table.
    public init() {}

    /// Adds a route.
    /// - Parameters:
    ///   - method: the method answered.
    ///   - template: a path starting with `/`; `{name}` segments capture.
    ///   - bodyLimit: a body limit for this route in bytes, overriding the server default.
    ///   - handler: the handler.
    /// - Warning: adding the same method and template twice keeps the first.
    public mutating func add(_ method: HTTPMethod, _ template: String, bodyLimit: Int? = nil, _ handler: Handler) {
        let route = Route(method: method, template: template, bodyLimit: bodyLimit, handler: handler)
        let segments = Self.parse(template: template)
        let hasParameter = segments.contains {
            if case .parameter = $0 { return true } else { return false }
        }
        if !hasParameter {
            staticRoutes.modify(template, initial: []) { $0.append(route) }
            return
        }
        if let index = templated.firstIndex(where: { Self.sameShape($0.segments, segments) }) {
            templated[index].routes.append(route)
        } else {
            templated.append(TemplateEntry(segments: segments, routes: [route]))
        }
    }

    /// Finds the route for a method and a path (the request's `path`, not percent-decoded).
    ///
    /// `@inlinable` (with what it calls), so that the module that picks `Handler` compiles it
    /// specialized: it runs for every request, and unspecialized generic code resolves type metadata.
    @inlinable
    public func match(method: HTTPMethod, path: String) -> RouteMatch<Handler> {
        var allowed: [HTTPMethod] = []
        if let routes = staticRoutes[path] {
            if let route = Self.pick(method: method, from: routes) {
                return .found(route, RouteParameters())
            }
            // A literal path wins over a template that would also take it (`/messages/wait` over
            // `/messages/{id}`): its methods alone are allowed.
            Self.collectAllowed(routes, into: &allowed)
            return .methodNotAllowed(allowed: allowed)
        }
        if !templated.isEmpty {
            var path = path
            let found = path.withUTF8 { bytes -> RouteMatch<Handler>? in
                for entry in templated {
                    guard let parameters = Self.capture(entry.segments, bytes) else { continue }
                    if let route = Self.pick(method: method, from: entry.routes) {
                        return .found(route, parameters)
                    }
                    Self.collectAllowed(entry.routes, into: &allowed)
                    return nil
                }
                return nil
            }
            if let found { return found }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    /// The body limit of the route that answers `method` and `path`; nil when none does or it has none.
    public func bodyLimit(method: HTTPMethod, path: String) -> Int? {
        if case .found(let route, _) = match(method: method, path: path) { return route.bodyLimit }
        return nil
    }

    /// Every route, static ones first, for documentation and tests.
    public var routes: [Route<Handler>] {
        staticRoutes.values.flatMap { $0 } + templated.flatMap { $0.routes }
    }

    @inlinable
    static func pick(method: HTTPMethod, from routes: [Route<Handler>]) -> Route<Handler>? {
        if let exact = routes.first(where: { $0.method == method }) { return exact }
        if method == .HEAD { return routes.first { $0.method == .GET } }
        return nil
    }

    @inlinable
    static func collectAllowed(_ routes: [Route<Handler>], into allowed: inout [HTTPMethod]) {
        for route in routes where !allowed.contains(route.method) {
            allowed.append(route.method)
            if route.method == .GET && !allowed.contains(.HEAD) && !routes.contains(where: { $0.method == .HEAD }) {
                allowed.append(.HEAD)
            }
        }
    }

    private static func parse(template: String) -> [Segment] {
        template.split(separator: "/", omittingEmptySubsequences: false).map { part in
            if part.count >= 3, part.first == "{", part.last == "}" {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(Array(part.utf8))
        }
    }

    private static func sameShape(_ a: [Segment], _ b: [Segment]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            switch (x, y) {
            case (.literal(let l), .literal(let r)) where l == r: continue
            case (.parameter(let l), .parameter(let r)) where l == r: continue
            default: return false
            }
        }
        return true
    }

    /// The parameters `segments` capture from `path` (its bytes, `/`-separated, empty segments included), or nil
    /// when the path does not have their shape. One pass over the bytes, comparing literal segments as bytes.
    @inlinable
    static func capture(_ segments: [Segment], _ path: UnsafeBufferPointer<UInt8>) -> RouteParameters? {
        var captured: [(name: String, value: String)] = []
        var start = 0
        for index in segments.indices {
            var end = start
            while end < path.count && path[end] != UInt8(ascii: "/") { end += 1 }
            // As many segments as the template: the last one ends the path, every other one a `/`.
            guard (index == segments.count - 1) == (end == path.count) else { return nil }
            let part = UnsafeBufferPointer(rebasing: path[start..<end])
            switch segments[index] {
            case .literal(let literal):
                guard literal.count == part.count else { return nil }
                for offset in 0..<part.count where part[offset] != literal[offset] { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                let text = String(decoding: part, as: UTF8.self)
                let value = part.contains(UInt8(ascii: "%")) ? PercentDecoding.decode(text, plusAsSpace: false) : text
                captured.append((name: name, value: value))
            }
            start = end + 1
        }
        var parameters = RouteParameters()
        parameters.pairs = captured
        return parameters
    }
}

import EmbeddedResources
import JWT

/// The OpenAPI 3.1 document served at `/openapi.json`: the embedded `openapi.json` with its `servers`
/// entry naming this server's base URL, so that a client generated from it calls this instance.
enum OpenAPIDocument {
    /// The document for a server whose base URL is `baseURL`, as compact JSON.
    /// - Throws: ``ConfigurationError`` when the embedded document is not a JSON object (a build defect).
    static func serving(baseURL: String) throws -> [UInt8] {
        let source = EmbeddedResources.openAPIDocument.bytes
        let limits = JSONValue.Limits(maximumBytes: source.count, maximumDepth: 64)
        guard case .object(var members)? = try? JSONValue.parse(source, limits: limits) else {
            throw ConfigurationError(key: "openapi.json", message: "the embedded OpenAPI document is not a JSON object")
        }
        let servers = JSONValue.array([.object([("url", .string(baseURL))])])
        if let index = members.firstIndex(where: { $0.0 == "servers" }) {
            members[index].1 = servers
        } else {
            let afterInfo = members.firstIndex { $0.0 == "info" }.map { $0 + 1 } ?? members.count
            members.insert(("servers", servers), at: afterInfo)
        }
        return JSONValue.object(members).serialize()
    }
}

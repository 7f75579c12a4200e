import EmbeddedResources
import Foundation
import JSON
import JWT

/// The OpenAPI 3.1 document served at `/openapi.json`: the embedded `openapi.json` with its `servers`
/// entry naming this server's base URL, so that a client generated from it calls this instance, and the
/// mailbox address pattern naming this server's domains, so that an address the schema allows is one the
/// server takes. The Mailpit and Mailosaur APIs' paths are written under their default mounts, `/mailpit` and
/// `/mailosaur`, and served under the ones configured (`POSTERN_MAILPIT_PATH`, `POSTERN_MAILOSAUR_PATH`), or left out
/// when they are off.
enum OpenAPIDocument {
    /// Where the address pattern of a new mailbox account sits.
    static let addressPatternPath = ["components", "schemas", "CreateAccountRequest", "properties", "address", "pattern"]
    /// The mount the embedded document's Mailpit paths are written under.
    static let mailpitPrefix = "/mailpit/"
    /// The mount the embedded document's Mailosaur paths are written under.
    static let mailosaurPrefix = "/mailosaur/"

    /// The document for a server whose base URL is `baseURL`, whose mailbox domains (public and Pro-only) are
    /// `mailboxDomains`, whose Mailpit API is mounted at `mailpitPath` and Mailosaur's at `mailosaurPath` (nil: not
    /// mounted), as compact JSON.
    /// - Throws: ``ConfigurationError`` when the embedded document is not a JSON object (a build defect).
    static func serving(
        baseURL: String, mailboxDomains: [String] = ["mail.localhost"], mailpitPath: String? = "/mailpit",
        mailosaurPath: String? = "/mailosaur"
    ) throws -> [UInt8] {
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
        if let index = members.firstIndex(where: { $0.0 == "paths" }), case .object(let paths) = members[index].1 {
            members[index].1 = .object(
                paths.compactMap { path, operations in
                    for (prefix, mount) in [(mailpitPrefix, mailpitPath), (mailosaurPrefix, mailosaurPath)]
                    where path.hasPrefix(prefix) {
                        guard let mount else { return nil }
                        return (mount + "/" + path.dropFirst(prefix.count), operations)
                    }
                    return (path, operations)
                })
        }
        var document = JSONValue.object(members)
        replace(at: addressPatternPath[...], in: &document, with: .string(addressPattern(domains: mailboxDomains)))
        return document.serialize()
    }

    /// `local@domain` as the mailbox surface takes it (``MailboxAddress``), for exactly these domains.
    static func addressPattern(domains: [String]) -> String {
        let alternatives = domains.map { $0.replacingOccurrences(of: ".", with: "\\.") }.joined(separator: "|")
        return "^(?!.*\\.\\.)[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?@(?:\(alternatives))$"
    }

    /// Replaces the member at `path` (object keys) when every step exists; otherwise leaves `value` alone.
    private static func replace(at path: ArraySlice<String>, in value: inout JSONValue, with new: JSONValue) {
        guard let key = path.first else {
            value = new
            return
        }
        guard case .object(var members) = value, let index = members.firstIndex(where: { $0.0 == key }) else { return }
        replace(at: path.dropFirst(), in: &members[index].1, with: new)
        value = .object(members)
    }
}

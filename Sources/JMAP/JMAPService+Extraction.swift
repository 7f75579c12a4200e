import JSON
import MailExtraction
import MailStore

/// Postern's private capability `urn:postern:jmap:extract` (issue 85): with it in `using`, `Email/get` knows two more
/// properties, each read from what Postern found in the message at delivery (`mail_extractions`):
///
/// - `codes`: the one-time codes, best first, each `{"value", "source"}` (`source` is where it was read: `subject`,
///   `text` or `html`);
/// - `links`: every link, verify, sign-in and reset ones first, each `{"url", "text", "kind"}` (`kind` is `verify`,
///   `sign-in`, `reset`, `unsubscribe` or `other`).
///
/// Both are null for a message stored before Postern looked (until `postern mail extract --backfill`). They are not in
/// RFC 8621's default property list: a client names them. Without the capability they are unknown properties.
extension JMAPService {
    /// The properties the capability adds to `Email/get`.
    static let extractionProperties: Set<String> = ["codes", "links"]

    /// The properties `Email/get` knows for `call`: RFC 8621's, and the extraction's when `using` names it.
    static func emailProperties(for call: JMAPCall) -> Set<String> {
        call.using.contains(Capability.extract) ? emailProperties.union(extractionProperties) : emailProperties
    }

    /// The extractions of the messages of `ids` in `call`'s mailbox, read only when `wanted` names one of the
    /// extraction's properties.
    func extractions(of ids: [String], wanted: [String], _ call: JMAPCall) async throws
        -> [String: MessageExtraction]?
    {
        guard wanted.contains(where: Self.extractionProperties.contains) else { return nil }
        return try await store.extractions(in: .address(call.account.address), ids: ids)
    }

    /// `codes` and `links` of `extraction`; null each when the message has none stored.
    static func extractionProperties(_ extraction: MessageExtraction?) -> [String: JSONValue] {
        guard let extraction else { return ["codes": .null, "links": .null] }
        return [
            "codes": .array(
                extraction.codes.map { code in
                    .object([
                        ("value", .string(code.value)),
                        ("source", .string(code.sources.first?.rawValue ?? CodeSource.text.rawValue)),
                    ])
                }),
            "links": .array(
                extraction.links.map { link in
                    .object([
                        ("url", .string(link.url)), ("text", .string(link.text)), ("kind", .string(link.kind.name)),
                    ])
                }),
        ]
    }
}

import JSON
import MailExtraction
import MailStore
import MailboxRoutes

/// What Postern found in a message (issue 85), on the operator's message objects: `codes`, best first, each its
/// `value` and the `source` it was read from (`subject`, `text`, `html`), and `extracted_links`, each link's `url`,
/// visible `text` and `kind` (`verify`, `sign-in`, `reset`, `unsubscribe`, `other`), beside the detail's `links`,
/// which stay the list of URLs they were. Both are null for a message stored before Postern found them at delivery,
/// until `postern mail extract --backfill` fills it.
extension OperatorController {
    /// The list object of `summary` (``operatorPairs(_:)``) with its codes and links, read from `mail`.
    static func operatorMessage(_ summary: MailSummary, in mail: MailStore) async throws -> [(String, JSONValue)] {
        let extraction = try await mail.extractions(in: .everyAddress, ids: [summary.id])[summary.id]
        return operatorPairs(summary) + extractionPairs(extraction)
    }

    /// The list objects of `summaries`, their codes and links read in one query.
    func operatorMessages(_ summaries: [MailSummary]) async throws -> [JSONValue] {
        let extractions = try await mail.extractions(in: .everyAddress, ids: summaries.map(\.id))
        return summaries.map { .object(Self.operatorPairs($0) + Self.extractionPairs(extractions[$0.id])) }
    }

    /// `codes` and `extracted_links` of `extraction`; both null when there is none.
    static func extractionPairs(_ extraction: MessageExtraction?) -> [(String, JSONValue)] {
        guard let extraction else { return [("codes", .null), ("extracted_links", .null)] }
        return [
            (
                "codes",
                .array(
                    extraction.codes.map { code in
                        .object([
                            ("value", .string(code.value)),
                            ("source", .string(code.sources.first?.rawValue ?? CodeSource.text.rawValue)),
                        ])
                    })
            ),
            (
                "extracted_links",
                .array(
                    extraction.links.map { link in
                        .object([
                            ("url", .string(link.url)), ("text", .string(link.text)), ("kind", .string(link.kind.name)),
                        ])
                    })
            ),
        ]
    }
}

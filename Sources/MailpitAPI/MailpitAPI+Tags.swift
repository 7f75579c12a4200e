import HTTP1
import JSON
import MailStore

/// The tag routes (`server/apiv1/tags.go`): a tag is a keyword of the message (``MailTag``), the same keyword JMAP and
/// IMAP see.
extension MailpitAPI {
    /// `GET /api/v1/tags`: every tag in use, sorted.
    func listTags(_ call: MailpitCall) async throws -> HTTPResponse {
        Self.json(.array(try await tagNames(call.scope).map(JSONValue.string)))
    }

    /// `PUT /api/v1/tags` `{"IDs", "Tags"}`: the messages of `IDs` carry exactly `Tags` (cleaned as Mailpit cleans
    /// them, duplicates ignoring case dropped); their other keywords (`$flagged`, ...) stay. `ok`.
    func setTags(_ call: MailpitCall) async throws -> HTTPResponse {
        let body = try MailpitBody(call.request)
        let ids = try body.strings("IDs")
        var wanted: [String: String] = [:]
        for keyword in try body.strings("Tags").compactMap(MailTag.keyword) where wanted[keyword.lowercased()] == nil {
            wanted[keyword.lowercased()] = keyword
        }
        let tags = Set(wanted.values)
        guard !ids.isEmpty else { return Self.ok() }
        do {
            _ = try await mail.rewriteKeywords(in: call.scope, matching: .ids(ids)) { keywords in
                keywords.filter { MailTag.tag($0) == nil }.union(tags)
            }
        } catch MailStoreError.keywordLimit {
            throw MailpitRefusal.badRequest("too many tags, or a tag too long")
        }
        return Self.ok()
    }

    /// `PUT /api/v1/tags/{Tag}` `{"Name"}`: every message tagged `Tag` is tagged `Name` instead; `ok`. An empty or
    /// invalid new name is 400.
    func renameTag(_ call: MailpitCall) async throws -> HTTPResponse {
        let body = try MailpitBody(call.request)
        guard let old = MailTag.keyword(call.parameter("tag")) else { throw MailpitRefusal.badRequest("invalid tag") }
        guard let new = MailTag.keyword(try body.string("Name") ?? "") else {
            throw MailpitRefusal.badRequest("invalid tag name")
        }
        do {
            _ = try await mail.rewriteKeywords(in: call.scope, matching: .hasKeywordIgnoringCase(old)) { keywords in
                keywords.filter { $0.lowercased() != old.lowercased() }.union([new])
            }
        } catch MailStoreError.keywordLimit {
            throw MailpitRefusal.badRequest("the new tag name is too long, or too many tags")
        }
        return Self.ok()
    }

    /// `DELETE /api/v1/tags/{Tag}`: no message is tagged `Tag` any more; `ok`.
    func deleteTag(_ call: MailpitCall) async throws -> HTTPResponse {
        guard let old = MailTag.keyword(call.parameter("tag")) else { throw MailpitRefusal.badRequest("invalid tag") }
        _ = try await mail.rewriteKeywords(in: call.scope, matching: .hasKeywordIgnoringCase(old)) { keywords in
            keywords.filter { $0.lowercased() != old.lowercased() }
        }
        return Self.ok()
    }

    /// The tags in use in `scope`, sorted ignoring case.
    func tagNames(_ scope: MailScope) async throws -> [String] {
        try await tagCounts(scope).keys.sorted { $0.lowercased() < $1.lowercased() }
    }

    /// How many messages of `scope` carry each tag.
    func tagCounts(_ scope: MailScope) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (keyword, count) in try await mail.keywordCounts(in: scope) {
            if let tag = MailTag.tag(keyword) { counts[tag, default: 0] += count }
        }
        return counts
    }
}

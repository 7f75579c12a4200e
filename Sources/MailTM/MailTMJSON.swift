import AuthCrypto
import JSON
import MIME
import MailStore
import MailboxAccounts
import Time

/// The JSON-LD resources of mail.tm's API, as its server (API Platform) writes them: each resource with `@context`,
/// `@id` (its IRI, relative to the API's root as mail.tm's are: `/messages/{id}`, never the mount path) and `@type`;
/// collections as `hydra:Collection` with `hydra:member`, `hydra:totalItems` and, when there is more than one page,
/// `hydra:view`. Times are RFC 3339 with `+00:00`, as PHP's `DateTime::ATOM` writes them. Pure: a value in, JSON out.
public enum MailTMJSON {
    /// The content type of every JSON-LD answer.
    public static let contentType = "application/ld+json; charset=utf-8"

    /// A time as mail.tm writes it: `2022-04-01T00:00:00+00:00`.
    public static func time(_ seconds: Int64) -> JSONValue {
        var text = RFC3339.format(seconds)
        if text.hasSuffix("Z") { text = String(text.dropLast()) + "+00:00" }
        return .string(text)
    }

    /// A domain's id: the first 12 bytes of its name's SHA-256 in hex (24 characters, the length of mail.tm's), the
    /// same on every instance and across restarts.
    public static func domainID(_ domain: String) -> String {
        Hex.encode(Array(SHA256.hash(domain).prefix(12)))
    }

    /// The `Account` resource of `account`. mail.tm's `isDisabled`/`isDeleted` are always false (a deleted account is
    /// gone), `updatedAt` is `createdAt` (nothing of an account is updated but its mail).
    public static func account(_ account: MailboxAccountSummary, context: Bool = true) -> JSONValue {
        .object(
            head("Account", "/accounts/\(account.id)", context: context) + [
                ("id", .string(account.id)), ("address", .string(account.address)), ("quota", .int(account.quota)),
                ("used", .int(account.used)), ("isDisabled", .bool(false)), ("isDeleted", .bool(false)),
                ("createdAt", time(account.createdAt)), ("updatedAt", time(account.createdAt)),
            ])
    }

    /// The `Domain` resource of `domain`: active, public; `createdAt` is when the server started serving it.
    public static func domain(_ domain: String, since: Int64) -> JSONValue {
        let id = domainID(domain)
        return .object(
            head("Domain", "/domains/\(id)", context: true) + [
                ("id", .string(id)), ("domain", .string(domain)), ("isActive", .bool(true)), ("isPrivate", .bool(false)),
                ("createdAt", time(since)), ("updatedAt", time(since)),
            ])
    }

    /// One item of `GET /messages`: the summary's fields, `intro` the stored preview. `to` and `msgid` come from
    /// `record` (the message's own header fields).
    public static func messageItem(_ record: MailMessageRecord, accountID: String) -> JSONValue {
        let summary = record.summary
        return .object(
            head("Message", "/messages/\(summary.id)", context: true) + common(record, accountID: accountID, intro: true))
    }

    /// `GET /messages/{id}`: the item's fields without `intro`, with `cc`, `bcc` (addresses as text, as mail.tm's
    /// docs show them), `flagged`, `verifications`, `retention`, `retentionDate`, `text`, `html` (a list of blocks)
    /// and `attachments`. Postern keeps mail until it is deleted: `retention` false, `retentionDate` the arrival.
    public static func message(_ record: MailMessageRecord, accountID: String) -> JSONValue {
        let summary = record.summary
        return .object(
            head("Message", "/messages/\(summary.id)", context: true) + common(record, accountID: accountID, intro: false)
                + [
                    ("cc", .array(record.cc.map { .string($0.email) })),
                    ("bcc", .array(record.bcc.map { .string($0.email) })),
                    ("flagged", .bool(summary.keywords.contains("$flagged"))), ("verifications", .array([])),
                    ("retention", .bool(false)), ("retentionDate", time(summary.receivedAt)),
                    ("text", .string(record.textBody ?? "")),
                    ("html", .array(record.htmlBody.map { [.string($0)] } ?? [])),
                    ("attachments", .array(record.attachments.map { attachment($0, messageID: summary.id) })),
                ])
    }

    /// An attachment of message `messageID`, its id `ATTACH` and its one-based position in six digits (mail.tm's
    /// form).
    static func attachment(_ info: MailAttachmentInfo, messageID: String) -> JSONValue {
        let id = attachmentID(info.position)
        return .object([
            ("id", .string(id)), ("filename", .string(info.filename ?? "attachment-\(info.position + 1)")),
            ("contentType", .string(info.contentType)), ("disposition", .string(info.disposition ?? "attachment")),
            ("transferEncoding", .string("base64")), ("related", .bool(info.contentID != nil)),
            ("size", .int(info.size)), ("downloadUrl", .string("/messages/\(messageID)/attachment/\(id)")),
        ])
    }

    /// `ATTACH000001` for position 0.
    public static func attachmentID(_ position: Int) -> String {
        let digits = String(position + 1)
        return "ATTACH" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// The position `ATTACH000001` names (0); nil for anything else.
    public static func attachmentPosition(_ id: String) -> Int? {
        guard id.hasPrefix("ATTACH"), id.utf8.count == 12, let number = Int(id.dropFirst(6)), number >= 1 else {
            return nil
        }
        return number - 1
    }

    /// `GET /sources/{id}`: the raw message as text, with its download URL.
    public static func source(id: String, raw: [UInt8]) -> JSONValue {
        .object(
            head("Source", "/sources/\(id)", context: true) + [
                ("id", .string(id)), ("downloadUrl", .string("/messages/\(id)/download")),
                ("data", .string(String(decoding: raw, as: UTF8.self))),
            ])
    }

    /// A collection of `members` at `path` (`/messages`, `/domains`) of type `type`, `total` in all, seen at `page`.
    public static func collection(
        _ members: [JSONValue], type: String, path: String, total: Int, page: MailTMPage
    ) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("@context", .string("/contexts/\(type)")), ("@id", .string(path)), ("@type", .string("hydra:Collection")),
            ("hydra:member", .array(members)), ("hydra:totalItems", .int(Int64(total))),
        ]
        if let view = page.view(path: path, total: total) { pairs.append(("hydra:view", view)) }
        return .object(pairs)
    }

    private static func head(_ type: String, _ id: String, context: Bool) -> [(String, JSONValue)] {
        (context ? [("@context", JSONValue.string("/contexts/\(type)"))] : []) + [
            ("@id", .string(id)), ("@type", .string(type)),
        ]
    }

    /// The fields a list item and a message share, in mail.tm's order; `intro` only in the list.
    private static func common(_ record: MailMessageRecord, accountID: String, intro: Bool) -> [(String, JSONValue)] {
        let summary = record.summary
        let sender = summary.from.first ?? MailAddress(email: summary.envelopeFrom)
        var pairs: [(String, JSONValue)] = [
            ("id", .string(summary.id)), ("accountId", .string("/accounts/\(accountID)")),
            ("msgid", .string(record.messageID.map { "<\($0)>" } ?? "<\(summary.id)@postern>")),
            ("from", address(sender)), ("to", .array(record.to.map(address))),
            ("subject", .string(summary.subject ?? "")),
        ]
        if intro { pairs.append(("intro", .string(summary.preview))) }
        pairs += [
            ("seen", .bool(summary.isRead)), ("isDeleted", .bool(false)),
            ("hasAttachments", .bool(!record.attachments.isEmpty)), ("size", .int(summary.size)),
            ("downloadUrl", .string("/messages/\(summary.id)/download")), ("createdAt", time(summary.receivedAt)),
            ("updatedAt", time(summary.receivedAt)),
        ]
        return pairs
    }

    private static func address(_ address: MailAddress) -> JSONValue {
        .object([("name", .string(address.name ?? "")), ("address", .string(address.email))])
    }
}

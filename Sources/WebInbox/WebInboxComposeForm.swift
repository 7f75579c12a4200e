import BrowserPages
import Foundation
import MIME
import MailStore
import ServerKit
import SMTPOutcomes
import Time

/// The form an owner writes a message in, as one of their inboxes (ids in ``WebInboxService/composePage(_:_:_:)``):
/// empty for a new message, filled for a reply, and filled again with what was written when sending was refused.
struct WebInboxComposeForm {
    /// The inbox it is sent from.
    var mailbox: String
    /// The To field as written: addresses separated by commas.
    var to = ""
    var subject = ""
    var body = ""
    /// The id of the message this replies to, in ``mailbox``; empty for a new message.
    var original = ""
    /// Why the last post was refused, in plain words.
    var error: String?

    /// The form of a reply to `record`: to its Reply-To, else its sender (to its recipients when it is one the inbox
    /// sent); "Re: " before its subject (once); its text part quoted below an empty line.
    static func reply(to record: MailMessageRecord, in mailbox: String) -> Self {
        let summary = record.summary
        var form = Self(mailbox: mailbox)
        form.original = summary.id
        let recipients =
            summary.folder == .sent ? record.to + record.cc : record.replyTo.isEmpty ? summary.from : record.replyTo
        form.to = recipients.map(\.email).joined(separator: ", ")
        form.subject = replySubject(summary.subject ?? "")
        let sender = summary.from.first.map(WebInboxPage.person) ?? summary.envelopeFrom
        let date = RFC3339.format(record.sentAt ?? summary.receivedAt).replacingOccurrences(of: "T", with: " ")
        var body = "\n\nOn \(date), \(sender) wrote:\n"
        if let text = record.textBody {
            // "\r\n" is one Character: lines are split once it is "\n"; the text's trailing line ends are not quoted.
            let lines = text.replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .newlines)
            body += lines.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.isEmpty ? ">" : "> " + line }
                .joined(separator: "\n")
        }
        form.body = body
        return form
    }

    /// `subject` with "Re: " before it, unless it starts with one already (any case).
    static func replySubject(_ subject: String) -> String {
        let trimmed = subject.drop { $0 == " " }
        return trimmed.lowercased().hasPrefix("re:") ? String(trimmed) : "Re: " + trimmed
    }

    /// The threading of a reply to `record`: `In-Reply-To` its Message-ID, `References` its own and that id.
    static func thread(of record: MailMessageRecord) -> (inReplyTo: [String], references: [String]) {
        guard let id = record.messageID else { return ([], record.references) }
        return ([id], record.references + [id])
    }

    /// The addresses of a To field, read by the RFC 5322 reader the sender check uses
    /// (``AddressListParser/mailboxList(_:)``): `a@example.com` or `Name <a@example.com>`, separated by commas (or
    /// semicolons, as some mail programs write them; one inside a quoted name stays part of it), empty members
    /// skipped; whether each is a mailbox is the mail API's to say.
    /// - Throws: ``WebInboxSendRefusal`` `invalidAddress` when the field is not such a list (`<a@x> <b@y>`, a group).
    static func addresses(_ field: String) throws(WebInboxSendRefusal) -> [String] {
        var quoted = false
        var escaped = false
        var list = ""
        for character in field {
            if escaped {
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ";" && !quoted {
                list.append(",")
                continue
            }
            list.append(character)
        }
        guard list.contains(where: { $0 != "," && $0 != " " && $0 != "\t" }) else { return [] }
        do {
            return try AddressListParser.mailboxList(list).map(\.email)
        } catch {
            throw WebInboxSendRefusal(.invalidAddress)
        }
    }

    /// The page: `form#compose-form` (`to` `#compose-to`, `subject` `#compose-subject`, `body` `#compose-body`,
    /// `#send`), `#compose-from`, `#error` when refused, `#back`.
    func render(_ viewer: WebInboxViewer, csrf: String) -> HTML {
        let path = WebInboxPage.mailboxPath(mailbox)
        let replying: HTML = original.isEmpty ? "" : "<input type=\"hidden\" name=\"original\" value=\"\(original)\">"
        // A textarea drops one newline right after its start tag: the one written here, not the body's own.
        let main: HTML = """
            <p><a id="back" href="\(path)">← \(mailbox)</a></p>
            \(HTML.notice(error, .error))
            <section class="card">
            <form method="post" action="\(path)/compose" id="compose-form">
            <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrf)">\(replying)
            <p id="compose-from">From <strong>\(mailbox)</strong></p>
            <label for="compose-to">To</label>
            <input id="compose-to" name="to" type="text" autocomplete="off" spellcheck="false" required \
            aria-describedby="compose-to-hint" value="\(to)">
            <p class="hint" id="compose-to-hint">Addresses separated by commas.</p>
            <label for="compose-subject">Subject</label>
            <input id="compose-subject" name="subject" type="text" autocomplete="off" value="\(subject)">
            <label for="compose-body">Message</label>
            <textarea id="compose-body" name="body" rows="14">
            \(body)</textarea>
            <button type="submit" id="send">Send</button>
            </form>
            </section>
            """
        return WebInboxPage.document(original.isEmpty ? "New message" : "Reply", viewer, csrf: csrf, main: main)
    }

    /// What the list says after a send (`notice` of the redirect), by its code; nil for any other code. A held send's
    /// code names its reason (`held.needs_owner`, `partly-held.outbound_off`), worded here.
    static func notice(_ code: String?) -> PageNotice? {
        if let code, let dot = code.firstIndex(of: "."),
            let reason = HeldReason(rawValue: String(code[code.index(after: dot)...]))
        {
            switch code[..<dot] {
            case "held":
                return PageNotice(
                    "Held in this server's outbox, not sent: \(reason.explanation). It can be released once that "
                        + "changes.", .warning)
            case "partly-held":
                return PageNotice(
                    "Delivered to the addresses here; held in this server's outbox for the addresses on other "
                        + "domains, not sent: \(reason.explanation). It can be released once that changes.", .warning)
            case "still-held":
                return PageNotice("Still held, not sent: \(reason.explanation).", .warning)
            default: return nil
            }
        }
        return switch code {
        case "sent": PageNotice("Sent.", .success)
        case "queued": PageNotice("Queued: the message is on its way to the addresses on other domains.", .success)
        case "released": PageNotice("Released: the message is on its way to the addresses on other domains.", .success)
        case "release-refused":
            PageNotice(
                "Still held, not sent: this inbox's sending limits, the message's size or the inbox's quota do not "
                    + "allow it now. Try again later.", .warning)
        case "undelivered": PageNotice("Not delivered: the recipients' mailboxes are full.", .error)
        case "partly-undelivered":
            PageNotice("Sent, but some recipients' mailboxes are full: they did not get it.", .warning)
        default: nil
        }
    }

    /// The code of the notice after a send that went as `report` says (the least good outcome wins).
    static func noticeCode(_ report: WebInboxSendReport) -> String {
        let reached = !report.delivered.isEmpty || !report.queued.isEmpty
        if !report.undelivered.isEmpty { return reached || !report.kept.isEmpty ? "partly-undelivered" : "undelivered" }
        if !report.kept.isEmpty {
            return (reached ? "partly-held." : "held.") + (report.heldReason ?? .outboundOff).code
        }
        if !report.queued.isEmpty { return "queued" }
        return "sent"
    }

    /// A refusal in plain words.
    static func sentence(_ refusal: WebInboxSendRefusal) -> String {
        switch refusal.reason {
        case .invalidAddress:
            "An address in To is not an address: write each as name@example.com, separated by commas."
        case .unknownRecipients(let addresses) where !addresses.isEmpty:
            "There is no such mailbox here: \(addresses.joined(separator: ", ")). Nothing was sent."
        case .unknownRecipients:
            "A recipient has no mailbox here. Nothing was sent."
        case .noRecipients:
            "Write at least one address in To."
        case .limitReached:
            "This inbox has sent to as many addresses on other domains as it may for now. Try again later."
        case .notAllowed:
            "This inbox may not send now. Nothing was sent."
        case .overQuota:
            "This inbox is full: delete some messages, then send again."
        case .unwritable:
            "This message cannot be sent as it is (too large, or a field holds characters mail cannot carry)."
        }
    }
}

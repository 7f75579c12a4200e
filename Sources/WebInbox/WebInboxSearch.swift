import Foundation
import HTTP1
import MailStore

/// The list's search, from its query (`text`, `from`, `subject`, `folder`): JMAP's filter conditions, all of them.
struct WebInboxSearch: Equatable {
    var text = ""
    var from = ""
    var subject = ""
    /// `inbox` (default), `sent` or `drafts`.
    var folder = MailFolder.inbox

    init(text: String = "", from: String = "", subject: String = "", folder: MailFolder = .inbox) {
        self.text = text
        self.from = from
        self.subject = subject
        self.folder = folder
    }

    init(_ request: HTTPRequest) {
        func field(_ name: String) -> String {
            String((request.queryItem(name) ?? "").trimmingCharacters(in: .whitespaces).prefix(200))
        }
        self.init(
            text: field("text"), from: field("from"), subject: field("subject"),
            folder: MailFolder(rawValue: field("folder")) ?? .inbox)
    }

    /// The filter `Email/query` would be given.
    var filter: MailFilter {
        var conditions: [MailFilter] = [.inFolder(folder)]
        if !text.isEmpty { conditions.append(.text(text)) }
        if !from.isEmpty { conditions.append(.from(from)) }
        if !subject.isEmpty { conditions.append(.subject(subject)) }
        return .all(conditions)
    }

    /// The query string that keeps this search, with `position`, for the paging links.
    func query(position: Int) -> String {
        var items = [("folder", folder.rawValue)]
        for (name, value) in [("text", text), ("from", from), ("subject", subject)] where !value.isEmpty {
            items.append((name, value))
        }
        items.append(("position", String(position)))
        return "?" + items.map { "\($0.0)=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
    }
}

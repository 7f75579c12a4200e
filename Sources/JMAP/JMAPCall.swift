import JWT
import MailStore

/// What one API request carries from call to call: the account, the creation ids (RFC 8620 section 5.3) and the
/// responses so far (for result references).
final class JMAPCall: @unchecked Sendable {
    let account: JMAPAccount
    let using: Set<String>
    /// Creation id (without `#`) → the id the server gave.
    var createdIDs: [String: String]
    var responses: [(name: String, arguments: JSONValue, callID: String)] = []

    init(account: JMAPAccount, using: Set<String>, createdIDs: [String: String]) {
        self.account = account
        self.using = using
        self.createdIDs = createdIDs
    }

    /// `#creationId` → the id created earlier in the request; any other text as it is. Nil for an unknown
    /// creation id.
    func id(_ text: String) -> String? {
        text.hasPrefix("#") ? createdIDs[String(text.dropFirst())] : text
    }
}

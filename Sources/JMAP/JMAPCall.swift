import ClientAddress
import JWT
import MailStore

/// What one API request carries from call to call: the account, the creation ids (RFC 8620 section 5.3) and the
/// responses so far (for result references).
final class JMAPCall: @unchecked Sendable {
    let account: JMAPAccount
    /// Whom the request came from, for the per-client limits.
    let client: ClientAddressKey
    let using: Set<String>
    /// Creation id (without `#`) → the id the server gave.
    var createdIDs: [String: String]
    var responses: [(name: String, arguments: JSONValue, callID: String)] = []
    /// Bytes the response may still grow by (`maxSizeResponse` less what earlier calls answered).
    private(set) var responseBytesLeft: Int
    /// Bytes `Blob/upload` may still create in this request (`maxSizeUpload` in all).
    var uploadBytesLeft: Int

    init(
        account: JMAPAccount, client: ClientAddressKey, using: Set<String>, createdIDs: [String: String],
        limits: JMAPConfiguration
    ) {
        self.account = account
        self.client = client
        self.using = using
        self.createdIDs = createdIDs
        responseBytesLeft = limits.maxSizeResponse
        uploadBytesLeft = limits.maxSizeUpload
    }

    /// Runs one method and takes its answers from the response budget, or throws `requestTooLarge`: what the
    /// method charged while it built its answer (each object of a `/get`, see ``charge(_:)``) only stopped it
    /// early; the answers are what is counted.
    func answering(_ method: () async throws -> [(String, JSONValue)]) async throws -> [(String, JSONValue)] {
        let left = responseBytesLeft
        let answers = try await method()
        responseBytesLeft = left
        for (_, answer) in answers { try charge(answer) }
        return answers
    }

    /// Takes what `value` adds to the response from the budget, or throws `requestTooLarge` and takes nothing.
    func charge(_ value: JSONValue) throws(MethodError) {
        responseBytesLeft -= try measure(value)
    }

    /// The serialized size of `value` when it fits in what is left of the budget; `requestTooLarge` when not,
    /// found without walking past the budget (a reference repeated twice per call doubles at every call).
    func measure(_ value: JSONValue) throws(MethodError) -> Int {
        guard let count = value.serializedCount(notExceeding: responseBytesLeft) else {
            throw MethodError.responseTooLarge
        }
        return count
    }

    /// `#creationId` → the id created earlier in the request; any other text as it is. Nil for an unknown
    /// creation id.
    func id(_ text: String) -> String? {
        text.hasPrefix("#") ? createdIDs[String(text.dropFirst())] : text
    }
}

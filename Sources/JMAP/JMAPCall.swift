import ClientAddress
import JSON
import MailSubmission

/// What one API request carries from call to call: the account, the creation ids (RFC 8620 section 5.3) and the
/// responses so far (for result references).
final class JMAPCall: @unchecked Sendable {
    let account: JMAPAccount
    /// Whom the request came from, for the per-client limits.
    let client: ClientAddressKey
    let using: Set<String>
    /// Creation id (without `#`) → the id the server gave.
    var createdIDs: [String: String]
    /// The answers so far and what is left of the response budget.
    var responses: JMAPResponses
    /// Bytes `Blob/upload` may still create in this request (`maxSizeUpload` in all).
    var uploadBytesLeft: Int
    /// The owner's typed refusal of each submission `EmailSubmission/set` refused in this request, by its creation id:
    /// the wire carries the `SetError`; an in-process sender (``JMAPService/send(_:as:client:requestID:)``) maps these.
    var submissionRefusals: [String: SubmissionRefusal] = [:]
    /// What the running method has charged so far (see ``charge(_:)``).
    private var charged = 0

    init(
        account: JMAPAccount, client: ClientAddressKey, using: Set<String>, createdIDs: [String: String],
        limits: JMAPConfiguration
    ) {
        self.account = account
        self.client = client
        self.using = using
        self.createdIDs = createdIDs
        responses = JMAPResponses(budget: limits.maxSizeResponse)
        uploadBytesLeft = limits.maxSizeUpload
    }

    /// Counts `value`, a part of the answer the running method is building (each object of a `/get`), against what
    /// is left of the response budget, and throws `requestTooLarge` once the parts pass it: a `/get` of one big
    /// message 500 times stops at the budget, not in the encoder. ``JMAPResponses/keep(_:callID:)`` counts the
    /// finished answer again, exactly.
    func charge(_ value: JSONValue) throws(MethodError) {
        charged += try responses.measure(value, alreadyTaken: charged)
    }

    /// Starts the count of ``charge(_:)`` afresh for the next method.
    func startMethod() {
        charged = 0
    }

    /// `#creationId` → the id created earlier in the request; any other text as it is. Nil for an unknown
    /// creation id.
    func id(_ text: String) -> String? {
        text.hasPrefix("#") ? createdIDs[String(text.dropFirst())] : text
    }
}

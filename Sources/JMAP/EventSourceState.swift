/// The states an event-source stream has told its client, which its event ids carry (RFC 8620 section 7.3): the
/// account's mail state (`Email`, `Mailbox`, `Thread`, `EmailDelivery`), and its `EmailSubmission` state when the
/// stream watches that type. The id is the mail state alone (`42`), or both joined by a dot (`42.7`).
struct EventSourceState: Sendable, Equatable {
    /// The account's mail state.
    var mail: Int64
    /// The account's `EmailSubmission` state; nil when the stream does not watch it, or the client's id did not say.
    var submission: String?

    /// The event id that names these states.
    var id: String {
        submission.map { "\(mail).\($0)" } ?? String(mail)
    }

    init(mail: Int64, submission: String?) {
        self.mail = mail
        self.submission = submission
    }

    /// The states an id names; nil for anything this server could not have sent (a client's own id, garbage).
    init?(id: String) {
        let parts = id.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        func digits(_ text: Substring) -> Bool {
            !text.isEmpty && text.utf8.count <= 18 && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
        }
        guard let first = parts.first, digits(first), let mail = Int64(first) else { return nil }
        if parts.count == 2 {
            guard digits(parts[1]) else { return nil }
            self.init(mail: mail, submission: String(parts[1]))
        } else {
            self.init(mail: mail, submission: nil)
        }
    }
}

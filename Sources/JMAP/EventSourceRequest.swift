import MIME

/// The query of an event-source request (RFC 8620 section 7.3), checked: which types, whether to close after the
/// first state event, and the ping interval within the server's bounds. Pure, so tests give it strings.
struct EventSourceRequest: Sendable, Equatable {
    /// The types of the account's mail, which share its one mail state (see `JMAPService+EventSource`).
    static let mailTypes = ["Email", "Mailbox", "Thread", "EmailDelivery"]
    /// The type with a state of its own, pushed when the service records submissions (it has a ledger).
    static let submissionType = "EmailSubmission"

    /// The types asked for, in `mailTypes` order then `EmailSubmission`; names this server does not push are left
    /// out.
    var types: [String]
    /// `closeafter=state`: the response ends after the first state event.
    var closeAfterState: Bool
    /// Seconds between pings after the last event; 0 for none.
    var ping: Int
    /// The states the client saw last (`Last-Event-ID`), when it is an id this server could have sent.
    var lastEvent: EventSourceState?

    /// Reads `types`, `closeafter`, `ping` and `Last-Event-ID`.
    /// - Parameters:
    ///   - types: `*` or a comma-separated list of type names; required.
    ///   - closeAfter: `state` or `no`; required.
    ///   - ping: seconds, a non-negative integer; required. A non-zero value is clamped to `pingRange`.
    ///   - lastEventID: the `Last-Event-ID` header; a value that is not an id of ours is ignored.
    ///   - pingRange: the server's bounds for a non-zero ping.
    ///   - submissions: whether `EmailSubmission` is pushed (the service records submissions).
    /// - Throws: `RequestError` 400 naming the parameter that is missing or malformed.
    init(
        types: String?, closeAfter: String?, ping: String?, lastEventID: String?, pingRange: ClosedRange<Int>,
        submissions: Bool = false
    ) throws {
        guard let types, !types.isEmpty else { throw Self.invalid("types", "`*` or a comma-separated list of types") }
        let pushable = Self.mailTypes + (submissions ? [Self.submissionType] : [])
        if types == "*" {
            self.types = pushable
        } else {
            let names = types.split(separator: ",", omittingEmptySubsequences: false).map {
                String($0).trimmingSpaces()
            }
            guard !names.contains(where: \.isEmpty) else {
                throw Self.invalid("types", "`*` or a comma-separated list of types")
            }
            self.types = pushable.filter(names.contains)
        }
        switch closeAfter {
        case "state": closeAfterState = true
        case "no": closeAfterState = false
        default: throw Self.invalid("closeafter", "`state` or `no`")
        }
        guard let ping, !ping.isEmpty, ping.utf8.count <= 9, ping.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let seconds = Int(ping)
        else { throw Self.invalid("ping", "a whole number of seconds, 0 for none") }
        self.ping = seconds == 0 ? 0 : min(max(seconds, pingRange.lowerBound), pingRange.upperBound)
        lastEvent = lastEventID.flatMap(EventSourceState.init(id:))
    }

    /// Whether the stream watches the `EmailSubmission` state (its event ids then carry it).
    var watchesSubmissions: Bool { types.contains(Self.submissionType) }

    private static func invalid(_ name: String, _ expected: String) -> RequestError {
        RequestError(
            status: .badRequest, type: "about:blank",
            detail: "The event source's `\(name)` query parameter must be \(expected) (RFC 8620 section 7.3).")
    }
}

/// What a subscription to mail.tm's Mercure hub asks for, read from its request, and the ids of the events it is
/// sent. Pure: text in, values out.
///
/// Rules (Mercure's subscription, as mail.tm uses it, and Postern's where mail.tm is silent):
/// 1. At least one `topic`; each must be the bearer's own account: `/accounts/{id}`, or an absolute URL whose path is
///    that (Mercure's topics are IRIs). No topic is a 400; a topic naming anything else (another account, a
///    selector, a template) is refused (403), so a token never listens to what it could not read.
/// 2. The place to resume from is the `Last-Event-ID` header, or Mercure's `lastEventID` query parameter when the
///    header is absent. An id this hub wrote (``eventID(state:messageID:)``) names the mail state after the message
///    it carried; the stream then sends every message that arrived since. Any other id (another hub's, `earliest`,
///    garbage) starts from now, as a new subscription does.
public struct MercureSubscription: Sendable, Equatable {
    /// The mail state to resume after; nil: from now.
    public let resumeState: Int64?

    /// Reads a subscription of account `accountID`.
    /// - Throws: ``MailTMError/badRequest(_:)`` without a topic, ``MailTMError/forbidden`` for a topic that is not
    ///   the account's.
    public init(topics: [String], lastEventID: String?, accountID: String) throws(MailTMError) {
        guard !topics.isEmpty else { throw .badRequest("Missing \"topic\" parameter.") }
        for topic in topics where Self.accountID(ofTopic: topic) != accountID { throw .forbidden }
        resumeState = lastEventID.flatMap(Self.state(ofEventID:))
    }

    /// The account a topic names: `/accounts/{id}`, or an `http(s)` URL whose path is that; nil for any other.
    static func accountID(ofTopic topic: String) -> String? {
        var path = Substring(topic)
        for scheme in ["https://", "http://"] where path.hasPrefix(scheme) {
            let rest = path.dropFirst(scheme.count)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            path = rest[slash...]
        }
        let prefix = "/accounts/"
        guard path.hasPrefix(prefix) else { return nil }
        let id = path.dropFirst(prefix.count)
        guard !id.isEmpty, !id.contains("/"), !id.contains("{"), !id.contains("?") else { return nil }
        return String(id)
    }

    /// The id of the event for the message `messageID` that moved the mail state to `state`:
    /// `urn:postern:mailtm:<state>:<message id>`.
    public static func eventID(state: Int64, messageID: String) -> String {
        "\(eventIDPrefix)\(state):\(messageID)"
    }

    /// The mail state an id of ``eventID(state:messageID:)`` names; nil for any other text.
    public static func state(ofEventID id: String) -> Int64? {
        guard id.hasPrefix(eventIDPrefix) else { return nil }
        let rest = id.dropFirst(eventIDPrefix.count)
        guard let colon = rest.firstIndex(of: ":"), let state = Int64(rest[..<colon]), state >= 0 else { return nil }
        return state
    }

    private static let eventIDPrefix = "urn:postern:mailtm:"
}

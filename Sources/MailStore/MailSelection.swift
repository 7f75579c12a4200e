/// Which messages one of the store's three verbs reaches (issue 82 item 2): ``MailStore/list(_:)``,
/// ``MailStore/mark(_:read:)`` and ``MailStore/delete(_:)``. The addresses (a ``MailScope``), the messages there that
/// pass a ``MailFilter`` (every door's search translates to one), in an order, and a page of them: `start` passed over,
/// at most `limit` taken (nil: every one). A verb that writes reaches exactly what ``MailStore/list(_:)`` would list.
public struct MailSelection: Sendable {
    /// The order of the messages, by arrival.
    public enum Order: Sendable {
        case newestFirst
        case oldestFirst

        var sql: String {
            switch self {
            case .newestFirst: "received_at DESC, received_seq DESC"
            case .oldestFirst: "received_at, received_seq"
            }
        }
    }

    public var scope: MailScope
    public var filter: MailFilter
    public var order: Order
    /// How many of the ordered messages are passed over.
    public var start: Int
    /// How many are taken at most; nil: every one.
    public var limit: Int?

    public init(
        _ scope: MailScope, _ filter: MailFilter = .all([]), order: Order = .newestFirst, start: Int = 0,
        limit: Int? = nil
    ) {
        (self.scope, self.filter, self.order, self.start, self.limit) = (scope, filter, order, start, limit)
    }

    /// Message `id` of `address`.
    public static func message(_ id: String, of address: String) -> MailSelection {
        MailSelection(.address(address), .ids([id]))
    }

    /// Every message of `address`.
    public static func everything(of address: String) -> MailSelection {
        MailSelection(.address(address))
    }
}

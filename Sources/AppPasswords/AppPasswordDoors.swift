/// The mail doors an app password opens (issue 87 item 2): one or several of IMAP, POP3 and submission, never a web
/// sign-in, the OAuth endpoints or JMAP. Stored as these bits.
public struct AppPasswordDoors: OptionSet, Sendable, Hashable {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }

    public static let imap = AppPasswordDoors(rawValue: 1)
    public static let pop3 = AppPasswordDoors(rawValue: 2)
    public static let submission = AppPasswordDoors(rawValue: 4)
    /// Every door an app password may open.
    public static let all: AppPasswordDoors = [.imap, .pop3, .submission]

    /// Each door with its name (as forms, the CLI and the audit trail spell it), in this order.
    public static let named: [(door: AppPasswordDoors, name: String)] = [
        (.imap, "imap"), (.pop3, "pop3"), (.submission, "submission"),
    ]

    /// The doors these names give (`imap`, `pop3`, `submission`, any case); nil for an unknown name or none.
    public init?(names: [String]) {
        var doors: AppPasswordDoors = []
        for name in names {
            guard let door = Self.named.first(where: { $0.name == name.lowercased() })?.door else { return nil }
            doors.insert(door)
        }
        guard !doors.isEmpty else { return nil }
        self = doors
    }

    /// The doors' names, in ``named``'s order.
    public var names: [String] { Self.named.filter { contains($0.door) }.map(\.name) }
}

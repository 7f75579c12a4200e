/// An app password as listed (never its secret): whose it is, the one inbox it opens, at which doors, and when it was
/// made and last used.
public struct AppPassword: Sendable, Equatable {
    /// Who made an app password: an owner (for one of the agent inboxes they hold) or a Pro user (for one of their
    /// Mail.td accounts).
    public enum Holder: Sendable, Hashable {
        case owner(String)
        case proUser(String)
    }

    /// Its random id (in URLs and the CLI).
    public let id: String
    public let holder: Holder
    /// The inbox it opens: an agent inbox's id (an owner's) or a Mail.td account's id (a Pro user's).
    public let accountID: String
    /// That inbox's address, the user name a mail client gives with it.
    public let address: String
    /// The name its holder gave it ("Phone", "mutt on the laptop").
    public let name: String
    public let doors: AppPasswordDoors
    /// Unix seconds.
    public let createdAt: Int64
    /// Unix seconds of its last sign-in, to the minute (``AppPasswordStore/lastUsedResolution``); nil if never used.
    public let lastUsedAt: Int64?

    public init(
        id: String, holder: Holder, accountID: String, address: String, name: String, doors: AppPasswordDoors,
        createdAt: Int64, lastUsedAt: Int64?
    ) {
        self.id = id
        self.holder = holder
        self.accountID = accountID
        self.address = address
        self.name = name
        self.doors = doors
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

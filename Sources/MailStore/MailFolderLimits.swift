/// How many folders an address may make and how long and deep their names may be (decision 35): one place every door
/// that makes or renames a folder meets, because the store refuses the write (``MailFolderError/limit(_:)``):
/// IMAP's `CREATE` and `RENAME` (`NO [LIMIT]`), JMAP's `Mailbox/set` (`overQuota`, `invalidProperties`).
public struct MailFolderLimits: Sendable, Equatable {
    /// Which cap a write would pass.
    public enum Limit: Sendable, Equatable {
        /// More than ``MailFolderLimits/maxFolders`` folders made by one address.
        case count
        /// A name (one component) longer than ``MailFolderLimits/maxNameBytes``.
        case nameLength
        /// A folder deeper than ``MailFolderLimits/maxDepth``.
        case depth
    }

    /// The most folders one address may make, the six fixed ones not counted. Default 1,000 (Dovecot's
    /// `mailbox_list_limit` is unset; Gmail allows 10,000 labels): far more than a person files into, and a `LIST "" *`
    /// answer under 100 KB.
    public var maxFolders = 1_000
    /// The most bytes (UTF-8) of one component of a folder's path. Default 255 (a file name's limit, Dovecot's
    /// `mailbox_list_index` limit).
    public var maxNameBytes = 255
    /// The most components of a folder's path. Default 16 (Dovecot's `mailbox_list_max_depth` is 0: no limit; 16
    /// holds `Archive/2026/11` several times over).
    public var maxDepth = 16

    /// The defaults.
    public init() {}

    /// Whether `name` may name a folder: not empty, no delimiter, no control character, no leading or trailing space
    /// (a name that looks like another), at most ``maxNameBytes``.
    /// - Throws: ``MailFolderError/name`` or ``MailFolderError/limit(_:)``.
    public func check(name: String) throws(MailFolderError) {
        guard !name.isEmpty, !name.contains(MailFolderTree.delimiter),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
            name.first?.isWhitespace == false, name.last?.isWhitespace == false
        else { throw .name }
        guard name.utf8.count <= maxNameBytes else { throw .limit(.nameLength) }
    }
}

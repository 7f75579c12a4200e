/// Why a folder write, or a write into a folder, stored nothing (decision 35). Each door answers it in its own shape.
public enum MailFolderError: Error, Sendable, Equatable {
    /// The folder named is not the address's (IMAP `NO [NONEXISTENT]` or `[TRYCREATE]`, JMAP `notFound`).
    case noSuchFolder
    /// A folder of that name is there already (IMAP `NO [ALREADYEXISTS]`, JMAP `invalidProperties`).
    case exists
    /// One of the six fixed folders cannot be renamed or deleted (IMAP `NO [CANNOT]`, JMAP `forbidden`).
    case fixed
    /// The folder has folders under it (IMAP `NO [HASCHILDREN]`, JMAP `mailboxHasChild`).
    case hasChildren
    /// The folder holds messages and they were not to be removed (JMAP `mailboxHasEmail`).
    case notEmpty
    /// A folder cannot be moved under itself or one of its own (IMAP `NO [CANNOT]`, JMAP `invalidProperties`).
    case underItself
    /// The name is empty, holds the delimiter or a control character, or has a space at an end (IMAP `NO [CANNOT]`,
    /// JMAP `invalidProperties`).
    case name
    /// This cap of ``MailStore/folderLimits`` would be passed (IMAP `NO [LIMIT]`, JMAP `overQuota` or
    /// `invalidProperties`).
    case limit(MailFolderLimits.Limit)
}

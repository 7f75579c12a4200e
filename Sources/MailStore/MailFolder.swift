/// Where a copy of a message sits in its address's mailbox.
public enum MailFolder: String, Sendable, CaseIterable {
    case inbox
    case drafts
    case sent
}

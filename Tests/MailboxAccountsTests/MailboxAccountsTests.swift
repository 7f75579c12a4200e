import Testing
@testable import MailboxAccounts

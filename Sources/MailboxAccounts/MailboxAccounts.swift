// Placeholder until the MailboxAccounts module lands.

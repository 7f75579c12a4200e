import Storage

extension MailStore {
    /// Starts hearing the other instances' writes, so that this store's change streams see them at once: on
    /// PostgreSQL a `LISTEN postern_mail` connection whose notifications (the changed addresses, sent as each change
    /// commits) are announced on ``changes``, and after each (re)connection every address, since what was sent
    /// meanwhile is unknown. Nil on SQLite, where other processes announce nothing and the change stream looks at
    /// the state each ``unannouncedLookInterval`` instead.
    ///
    /// The composition root starts it once for the server and stops it at shutdown (`stop()` blocks up to a
    /// connection attempt's timeout). A lost connection is logged on the database's logger.
    public func listenToOtherInstances() -> (any SQLNotificationListener)? {
        let changes = self.changes
        return database.listen(on: Self.notificationChannel, logger: database.logger) { addresses in
            if let addresses { changes.announce(addresses) } else { changes.announceEverywhere() }
        }
    }
}

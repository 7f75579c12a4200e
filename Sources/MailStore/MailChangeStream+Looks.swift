/// The rest of every consumer of the one change stream, once (issue 82 item 4): the consumer's read after an element.
///
/// A push door or a wait reads the store after each element (the message a wait looks for, the list an event socket
/// compares). Here that read runs as the stream's own looks do: at once, then after each element; a read that finds
/// the database unavailable (`StorageError` `.unavailable`: a failover) is tried again each
/// ``MailStore/unannouncedLookInterval`` of the stream's clock until the database is back, so that every door goes on
/// through a failover and reports the next delivery, none closing its socket or failing its wait. Once the stream's
/// `until` has passed, the outage is thrown (a wait cannot say that nothing came while it could not look); any other
/// error is thrown at once; a cancelled task ends the looks quietly.
extension MailChangeStream {
    /// What `look` first returns: `look` runs at once (given nil) and again after each element (given it), each run
    /// outlasting an outage; nil when the stream ends first (`until`, a re-check that says no) or the task is
    /// cancelled. A consumer that pushes for as long as its socket lives returns nil from every look and sends what
    /// it read at its end, after every read of that run (a run tried again has sent nothing).
    public func firstLook<T: Sendable>(_ look: (MailStreamEvent?) async throws -> T?) async throws -> T? {
        var elements = makeAsyncIterator()
        do {
            if let found = try await outlasting({ try await look(nil) }) { return found }
            while let event = try await elements.next() {
                if let found = try await outlasting({ try await look(event) }) { return found }
            }
        } catch is CancellationError {}
        return nil
    }

    /// What `body` returns, through outages as the stream's own looks are (on its clock, until its `until`).
    private func outlasting<T>(_ body: () async throws -> T) async throws -> T {
        try await store.outlastingOutages(until: until, clock: clock, body)
    }
}

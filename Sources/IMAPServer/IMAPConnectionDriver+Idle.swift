import IMAP
import MailDoorServer
import MailStore

/// IDLE (RFC 2177) as one job of the connection: started and ended from the connection's loop, in the order the
/// session asked (an `IDLE` and its `DONE` in one read included), and cancelled whole by its end or by the
/// connection's close, so no watch outlives either.
extension IMAPConnectionDriver {
    /// Starts the IDLE's task, ending one still running: it watches the signed-in address's change stream, each
    /// change's responses (``refresh(holdingExpunges:)``) to `notify`, and checks the holder's standing every
    /// ``MailSessionStanding/recheck``, telling `end` why the session ended. Called on the loop.
    nonisolated func startIdle(
        notify: @escaping @Sendable ([IMAPUntaggedResponse]) -> Void, end: @escaping @Sendable (MailSessionEnd) -> Void
    ) {
        taskBegan()
        let task = Task {
            await self.idle(notify: notify, end: end)
            self.taskEnded()
        }
        idleWatch.withLock { watch in
            watch?.cancel()
            watch = task
        }
    }

    /// Ends the IDLE's task (`DONE`, the connection gone). Called on the loop.
    nonisolated func endIdle() {
        idleWatch.withLock { watch in
            watch?.cancel()
            watch = nil
        }
    }

    /// The IDLE, until it is cancelled or the holder's standing ends the session: the change stream and the
    /// standing's checks as two children of one group, so that cancelling the IDLE's task ends both.
    private func idle(
        notify: @escaping @Sendable ([IMAPUntaggedResponse]) -> Void, end: @escaping @Sendable (MailSessionEnd) -> Void
    ) async {
        guard let address = holder?.address, view != nil else { return }
        let stream = store.changeStream(of: address)
        let recheck = holder?.standing?.recheck
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await event in stream {
                        guard case .changed = event else { continue }
                        // A look that finds the database away (a failover) is made again, as the stream's own are.
                        let responses = try await self.store.outlastingOutages { try await self.refresh() }
                        if !responses.isEmpty { notify(responses) }
                    }
                } catch {
                    return  // cancelled, or the store failed otherwise: the next command looks again
                }
            }
            if let recheck {
                group.addTask {
                    while (try? await Task.sleep(for: recheck)) != nil {
                        if let reason = await self.ended(writing: false) { return end(reason) }
                    }
                }
            }
            // Either child's end (the standing ended the session, the stream failed) ends the IDLE.
            await group.next()
            group.cancelAll()
        }
    }
}

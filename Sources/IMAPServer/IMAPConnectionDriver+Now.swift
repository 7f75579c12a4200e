import IMAP
import MailDoorServer
import MailStore

/// Commands the connection's loop answers itself (issue 84, run to completion): on SQLite, a `FETCH` (`UID FETCH`)
/// that reads no more than one batch and one part and sets no flag, a `SEARCH` whose keys read nothing but the view,
/// and a `STATUS` of a numbered mailbox, each answered from one read of the loop thread's own read-only connection
/// (``MailStore/readOnCallingThread(_:)``), with no Swift task, no hop to the store's reader queue and none back.
/// The selected mailbox must be as the client last saw it: the read takes the address's state with the data, and a
/// state other than the view's (something changed, the client must be told first) hands the command to its task,
/// which refreshes. So does anything else (a write, a check of the holder's standing that is due, a store error,
/// PostgreSQL, whose read is a round trip): the answer is the task's, the same as before.
extension IMAPConnectionDriver {
    /// The most messages a command answered on the loop reads or renders (a FETCH's, a STATUS's folder): a loop
    /// answers eight short commands a turn, each well under a millisecond; a larger one is its task's.
    static let loopMessages = 256
    /// The most stored bytes a FETCH answered on the loop renders.
    static let loopBytes = 256 << 10

    /// Whether `command` is of a kind the loop may answer itself, the driver idle: decided without a read.
    nonisolated func mayAnswerNow(_ command: IMAPCommand) -> Bool {
        switch command.kind {
        case .fetch, .status, .search: break
        default: return false
        }
        return store.readsOnCallingThread && mirror.withLock { $0.tasks == 0 && $0.holder != nil }
    }

    /// `command`'s answer made on the calling thread (the connection's loop), or nil when it is not short work here
    /// (then the driver's task answers it).
    nonisolated func answerNow(_ command: IMAPCommand) -> IMAPCommandResult? {
        let (holder, view, saved) = mirror.withLock { ($0.tasks == 0 ? $0.holder : nil, $0.view, $0.saved) }
        guard let holder, holder.standing?.isDue(at: now(), writing: Self.writes(command.kind)) != true else {
            return nil
        }
        let answer = answerNow(command, holder: holder, view: view, saved: saved)
        if answer != nil { loopAnswers.count.add(1, ordering: .relaxed) }
        return answer
    }

    private nonisolated func answerNow(
        _ command: IMAPCommand, holder: MailboxHolder, view: IMAPMailboxView?, saved: [UInt32]
    ) -> IMAPCommandResult? {
        switch command.kind {
        case .fetch(let set, let attributes, let uid):
            guard let view else { return nil }
            return try? fetchNow(set, attributes, uid: uid, holder: holder, view: view, saved: saved)
        case .search(let search, let uid):
            guard let view else { return nil }
            return try? searchNow(search, uid: uid, tag: command.tag, holder: holder, view: view, saved: saved)
        case .status(let name, let items):
            return try? statusNow(name, items, holder: holder)
        default:
            return nil
        }
    }

    /// The FETCH's answer when its bytes are one batch within one part and the view is current (one read: the state
    /// and the bytes together); it sets no flag (a `\Seen` is a write, and ``writes(_:)`` kept it away).
    private nonisolated func fetchNow(
        _ set: IMAPSequenceSet, _ attributes: [IMAPFetchAttribute], uid: Bool, holder: MailboxHolder,
        view: IMAPMailboxView, saved: [UInt32]
    ) throws -> IMAPCommandResult? {
        guard !view.holdsExpunges, let looked = view.lookedAtState else { return nil }
        let indexes = view.indexes(set, uid: uid, saved: saved)
        // Bounded before anything is looked up per message: a FETCH of a whole large mailbox is its task's, and the
        // loop must not first spend the time of one envelope lookup per message on it.
        guard indexes.count <= Self.loopMessages else { return nil }
        let kept = attributes.contains(.envelope) ? envelopes.envelopes(indexes.lazy.map { view.entries[$0].id }) : []
        var cursor = IMAPFetchCursor(
            attributes: attributes, uid: uid, holder: holder, indexes: indexes, first: nil, kept: kept,
            readOnly: view.readOnly)
        let ids = Self.readAhead(cursor.reads[...], of: view.entries)
        let bytes = cursor.reads.reduce(0) { $0 + Int(view.entries[$1].size) }
        guard !cursor.marksSeen, ids.count == cursor.reads.count, bytes <= Self.loopBytes else { return nil }
        let address = holder.address
        guard
            let read = try store.readOnCallingThread({ read -> (state: Int64, raws: [String: [UInt8]]) in
                ids.isEmpty ? (try read.state(address: address), [:]) : try read.stateAndRaws(address: address, ids: ids)
            }), read.state == looked
        else { return nil }
        cursor.batch = read.raws
        cursor.batchEnd = ids.count
        var part = IMAPFetchPart()
        var answered = view
        while !cursor.isFinished {
            guard !part.isFull else { return nil }  // larger than the stored sizes said: the task answers in parts
            cursor.answerNext(view: &answered, into: &part)
        }
        envelopes.keep(part.parsed)
        return IMAPCommandResult(part.responses, status: Self.fetchCompleted)
    }

    /// The SEARCH's answer when its keys read nothing but the view (``IMAPSearch/readsNothing(_:)``) and the view is
    /// current (one read: the state). Not with `RETURN (SAVE)`, which changes the driver's `$`.
    private nonisolated func searchNow(
        _ command: IMAPSearchCommand, uid: Bool, tag: String, holder: MailboxHolder, view: IMAPMailboxView,
        saved: [UInt32]
    ) throws -> IMAPCommandResult? {
        guard command.returnOptions?.contains(.save) != true, IMAPSearch.readsNothing(command.key),
            command.charset.map({ ["US-ASCII", "UTF-8"].contains($0.uppercased()) }) ?? true,
            !view.holdsExpunges, let looked = view.lookedAtState
        else { return nil }
        let address = holder.address
        guard try store.readOnCallingThread({ try $0.state(address: address) }) == looked else { return nil }
        let found = IMAPSearch.inView(command.key, view, saved: saved).enumerated().compactMap { $0.element ? $0.offset : nil }
        return IMAPCommandResult(
            [Self.searchResponse(found, command, in: view.entries, uid: uid, tag: tag)], status: Self.searchCompleted)
    }

    /// The STATUS's answer when the mailbox is numbered already (numbering one is a write), from one read of its
    /// folders, its messages and, when asked, its recent mark.
    private nonisolated func statusNow(_ name: IMAPMailboxName, _ items: [IMAPStatusItem], holder: MailboxHolder)
        throws -> IMAPCommandResult?
    {
        let address = holder.address
        let answer = try store.readOnCallingThread { read -> IMAPCommandResult? in
            let names = IMAPMailboxNames(tree: try read.folders(address: address), subscriptions: [])
            guard let folder = names.folder(name) else { return Self.noSuchMailbox }
            guard let snapshot = try read.numberedSnapshot(address: address, folder: folder, atMost: Self.loopMessages)
            else { return nil }
            let recent = items.contains(.recent) ? try read.recentUID(address: address, folder: folder) : 0
            return IMAPCommandResult(
                [Self.status(name, items, of: snapshot, recent: recent)], status: Self.statusCompleted)
        }
        return answer ?? nil
    }

    // MARK: - The driver's tasks

    /// A task of the driver's begins (called on the loop, before it starts): the loop answers nothing itself until it
    /// ends.
    nonisolated func taskBegan() {
        mirror.withLock { $0.tasks += 1 }
    }

    /// A task of the driver's ended (called by it, before its answer is posted to the loop).
    nonisolated func taskEnded() {
        mirror.withLock { $0.tasks -= 1 }
    }
}

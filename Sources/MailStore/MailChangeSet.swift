/// What a run of the change log amounts to for one kind of object (JMAP's `*/changes`): the ids created, updated and
/// destroyed since the old state, and the state the answer brings the client to. Pure: made from log rows.
public struct MailChangeSet: Sendable, Equatable {
    public var created: [String] = []
    public var updated: [String] = []
    public var destroyed: [String] = []
    /// The state the client is at after applying this set.
    public var newState: Int64
    /// Whether changes after ``newState`` remain (the set stopped at `maxChanges`).
    public var hasMoreChanges = false

    public init(
        created: [String] = [], updated: [String] = [], destroyed: [String] = [], newState: Int64,
        hasMoreChanges: Bool = false
    ) {
        self.created = created
        self.updated = updated
        self.destroyed = destroyed
        self.newState = newState
        self.hasMoreChanges = hasMoreChanges
    }

    /// The messages changed by `log` (ascending `seq`, everything after `since` up to `state`), at most `maxChanges`
    /// ids: the set stops at the last log row whose message still fits, and ``newState`` is that row's state. A
    /// message created and destroyed within the run appears nowhere; created then updated counts as created.
    public static func emails(_ log: [MailChange], since: Int64, state: Int64, maxChanges: Int) -> MailChangeSet {
        let log = log.filter(\.kind.isMessage)
        let (kept, newState, more) = prefix(log, since: since, state: state, maxChanges: maxChanges) { [$0.messageID] }
        return classify(kept, newState: newState, more: more, id: { $0.messageID }, isCreation: { $0.kind == .created })
    }

    /// The threads changed by `log`: a thread is created by the creation of the message that starts it (whose id is
    /// the thread's); `existing` are the thread ids that have messages now, which tells a destroyed thread from an
    /// updated one.
    public static func threads(
        _ log: [MailChange], since: Int64, state: Int64, maxChanges: Int, existing: Set<String>
    ) -> MailChangeSet {
        let (kept, newState, more) = prefix(log, since: since, state: state, maxChanges: maxChanges) {
            $0.threadID.map { [$0] } ?? []
        }
        var started: Set<String> = []
        var order: [String] = []
        for change in kept {
            guard let thread = change.threadID else { continue }
            if !order.contains(thread) { order.append(thread) }
            if change.kind == .created && change.messageID == thread { started.insert(thread) }
        }
        var set = MailChangeSet(newState: newState, hasMoreChanges: more)
        for thread in order {
            switch (started.contains(thread), existing.contains(thread)) {
            case (true, true): set.created.append(thread)
            case (true, false): continue
            case (false, true): set.updated.append(thread)
            case (false, false): set.destroyed.append(thread)
            }
        }
        return set
    }

    /// The mailboxes (folders) `log` changed: made, renamed or deleted (the folder's own rows, migration 0076), or
    /// whose contents or counts changed (a message's row names the folders before and after). A folder made and
    /// deleted within the run appears nowhere; made then changed counts as created.
    public static func mailboxes(_ log: [MailChange], since: Int64, state: Int64, maxChanges: Int) -> MailChangeSet {
        let folders: (MailChange) -> [String] = { change in
            var names: [String] = []
            for folder in [change.folderBefore, change.folderAfter].compactMap({ $0 })
            where !names.contains(folder.rawValue) {
                names.append(folder.rawValue)
            }
            return change.kind.isMessage ? names : [change.messageID]
        }
        let (kept, newState, more) = prefix(log, since: since, state: state, maxChanges: maxChanges, ids: folders)
        let rows = kept.flatMap { change in
            folders(change).map { folder in
                MailChange(
                    seq: change.seq, messageID: folder, threadID: nil,
                    kind: change.kind == .mailboxCreated ? .created
                        : change.kind == .mailboxDestroyed ? .destroyed : .updated,
                    folderBefore: nil, folderAfter: nil)
            }
        }
        return classify(rows, newState: newState, more: more, id: { $0.messageID }, isCreation: { $0.kind == .created })
    }

    /// The longest run of `log` whose distinct ids number at most `maxChanges` (at least one row when there is one),
    /// the state after it, and whether rows remain.
    private static func prefix(
        _ log: [MailChange], since: Int64, state: Int64, maxChanges: Int, ids: (MailChange) -> [String]
    ) -> ([MailChange], Int64, Bool) {
        var seen: Set<String> = []
        var end = 0
        while end < log.count {
            let added = Set(ids(log[end])).subtracting(seen)
            if end > 0 && seen.count + added.count > maxChanges { break }
            seen.formUnion(added)
            end += 1
        }
        guard end < log.count else { return (log, state, false) }
        return (Array(log[..<end]), log[end - 1].seq, true)
    }

    private static func classify(
        _ log: [MailChange], newState: Int64, more: Bool, id: (MailChange) -> String,
        isCreation: (MailChange) -> Bool
    ) -> MailChangeSet {
        var first: [String: MailChange] = [:]
        var last: [String: MailChange] = [:]
        var order: [String] = []
        for change in log {
            let key = id(change)
            if first[key] == nil {
                first[key] = change
                order.append(key)
            }
            last[key] = change
        }
        var set = MailChangeSet(newState: newState, hasMoreChanges: more)
        for key in order {
            let created = first[key].map(isCreation) ?? false
            let destroyed = last[key]?.kind == .destroyed
            switch (created, destroyed) {
            case (true, true): continue
            case (true, false): set.created.append(key)
            case (false, true): set.destroyed.append(key)
            case (false, false): set.updated.append(key)
            }
        }
        return set
    }
}

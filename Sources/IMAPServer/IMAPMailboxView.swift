import IMAP
import MailStore

/// The selected mailbox as one session knows it (RFC 9051 §2.3.1): its messages in UID order, so that a message's
/// sequence number is its place here, and what the session last told the client about them. A new look at the store
/// (``sync(to:)``) becomes the `EXPUNGE`, `EXISTS` and `FETCH (FLAGS)` responses that bring the client up to date, in
/// that order, each `EXPUNGE` numbered as the client counts after the ones before it.
struct IMAPMailboxView: Sendable, Equatable {
    var folder: MailFolder
    var readOnly: Bool
    var mailbox: MailUIDMailbox
    /// The messages the client knows, in UID order (sequence number = index + 1).
    private(set) var entries: [MailUIDEntry]
    /// The keywords the last `FLAGS` response named (a client may be told of no flag it was not told of first).
    private(set) var announcedKeywords: Set<String> = []
    /// Whether the last look kept messages the store no longer has, their EXPUNGEs held back: the next look must
    /// tell them even when nothing has changed since.
    private(set) var holdsExpunges = false
    /// The address's mail state (`MailStore.state(address:)`) read just before the last look; nil before any.
    var lookedAtState: Int64?
    /// The UIDs recent in this session (RFC 3501 §2.3.2), rising: those it claimed (``MailStore/claimRecent``), or,
    /// read-only, those no session had claimed when it looked.
    private(set) var recent: [ClosedRange<UInt32>] = []
    /// The largest UID the session has claimed up to, or found claimed by others: arrivals above it are claimed next.
    var recentClaimedThrough: UInt32 = 0

    init(folder: MailFolder, readOnly: Bool, mailbox: MailUIDMailbox, entries: [MailUIDEntry]) {
        self.folder = folder
        self.readOnly = readOnly
        self.mailbox = mailbox
        self.entries = entries
    }

    /// Marks `uids` recent in this session.
    mutating func addRecent(_ uids: ClosedRange<UInt32>) {
        if let last = recent.last, last.upperBound &+ 1 == uids.lowerBound {
            recent[recent.count - 1] = last.lowerBound...uids.upperBound
        } else {
            recent.append(uids)
        }
    }

    /// Whether the message `uid` is recent in this session.
    func isRecent(_ uid: UInt32) -> Bool {
        recent.contains { $0.contains(uid) }
    }

    /// How many of the messages the client knows are recent in this session (the `RECENT` response).
    var recentCount: UInt32 {
        guard !recent.isEmpty else { return 0 }
        return UInt32(entries.count(where: { isRecent($0.uid) }))
    }

    /// The flags of the message `uid` with `keywords`: its keywords' flags, and `\Recent` when it is recent here.
    func flags(_ keywords: Set<String>, uid: UInt32) -> [IMAPFlag] {
        IMAPFlag.flags(keywords) + (isRecent(uid) ? [.recent] : [])
    }

    /// The largest UID the client knows; 0 for an empty mailbox.
    var largestUID: UInt32 { entries.last?.uid ?? 0 }

    /// The sequence number (1-based) of `uid`, nil when the client knows no such message.
    func sequenceNumber(ofUID uid: UInt32) -> Int? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].uid < uid { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].uid == uid ? low + 1 : nil
    }

    /// The indexes (0-based) of the messages `set` names, in rising order, each once: sequence numbers, or UIDs when
    /// `uid` (a UID past every message names none, except that `n:*` always names the last, RFC 9051 §6.4.8);
    /// `saved` stands in for `$`.
    func indexes(_ set: IMAPSequenceSet, uid: Bool, saved: [UInt32]) -> [Int] {
        var chosen = Set<Int>()
        if case .savedResult = set {
            for value in saved { if let number = sequenceNumber(ofUID: value) { chosen.insert(number - 1) } }
            return chosen.sorted()
        }
        let last = uid ? largestUID : UInt32(entries.count)
        for range in set.ranges(last: last) ?? [] {
            if uid {
                let start = firstIndex(atLeastUID: range.lowerBound)
                var index = start
                while index < entries.count && entries[index].uid <= range.upperBound {
                    chosen.insert(index)
                    index += 1
                }
            } else {
                let upper = Swift.min(Int(range.upperBound), entries.count)
                if Int(range.lowerBound) <= upper {
                    for number in Int(range.lowerBound)...upper { chosen.insert(number - 1) }
                }
            }
        }
        return chosen.sorted()
    }

    private func firstIndex(atLeastUID uid: UInt32) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].uid < uid { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Sets the keywords the client was told of message `index` (after its own STORE, answered with its FETCH).
    mutating func setKeywords(_ keywords: Set<String>, at index: Int) {
        entries[index].keywords = keywords
    }

    /// The `FLAGS` response to send before anything that shows a keyword the client was not told of: the system
    /// flags and every keyword in the mailbox. Nil when nothing new is in use.
    mutating func flagsUpdate(adding keywords: Set<String> = []) -> IMAPUntaggedResponse? {
        var inUse = keywords
        for entry in entries { inUse.formUnion(entry.keywords) }
        inUse.subtract(IMAPFlag.systemFlags.compactMap(\.keyword))
        guard !inUse.isSubset(of: announcedKeywords) else { return nil }
        announcedKeywords.formUnion(inUse)
        return .flags(IMAPFlag.systemFlags + IMAPFlag.flags(announcedKeywords))
    }

    /// Takes the store's look at the mailbox and returns what the client must be told, in order: an `EXPUNGE` per
    /// message gone (numbered as the client counts after the ones before), `EXISTS` when the count differs after
    /// them (after arrivals), and `FETCH (UID FLAGS)` per message whose flags changed.
    ///
    /// With `holdingExpunges` (during a FETCH, STORE or SEARCH by sequence number, where RFC 9051 §7.5.1 allows no
    /// EXPUNGE) the messages gone stay in the view, numbers unchanged, until a later look may say so.
    mutating func sync(
        to snapshot: (mailbox: MailUIDMailbox, entries: [MailUIDEntry]), holdingExpunges: Bool = false
    ) -> [IMAPUntaggedResponse] {
        var responses: [IMAPUntaggedResponse] = []
        let now = Dictionary(snapshot.entries.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
        var kept: [MailUIDEntry] = []
        var removed = 0
        holdsExpunges = false
        for (index, entry) in entries.enumerated() {
            if now[entry.uid] == nil && !holdingExpunges {
                responses.append(.expunge(UInt32(index + 1 - removed)))
                removed += 1
            } else {
                if now[entry.uid] == nil { holdsExpunges = true }
                kept.append(entry)
            }
        }
        let known = largestUID
        let arrived = snapshot.entries.filter { $0.uid > known }
        var flagChanges: [IMAPUntaggedResponse] = []
        for (index, entry) in kept.enumerated() {
            guard let current = now[entry.uid], current.keywords != entry.keywords else { continue }
            kept[index].keywords = current.keywords
            flagChanges.append(
                .fetch(UInt32(index + 1), [.uid(entry.uid), .flags(flags(current.keywords, uid: entry.uid))]))
        }
        // With nothing held back the client now knows exactly the snapshot's messages: keep its array, which other
        // sessions at the same state share (IMAPSnapshotCache), rather than a copy of it.
        let knowsSnapshot = !holdsExpunges && kept.count + arrived.count == snapshot.entries.count
        entries = knowsSnapshot ? snapshot.entries : kept + arrived
        mailbox = snapshot.mailbox
        if let flags = flagsUpdate() { responses.insert(flags, at: 0) }
        if !arrived.isEmpty { responses.append(.exists(UInt32(entries.count))) }
        return responses + flagChanges
    }
}

import MailStore

/// The last look at each selected mailbox, kept with the address's mail state read just before it and shared by every
/// session of one listener: sessions that look at one mailbox at one state get one array of entries (copy-on-write: a
/// session's own STORE copies it then), so 1,000 sessions on a 10,000-message mailbox hold one copy instead of 1,000
/// (about 1.4 MiB each). A snapshot kept under a state was read after that state was, so a session asking with the
/// state it has just read is never given an older one. Bounded by ``IMAPServerConfiguration/snapshotCacheEntries``
/// entries in all; the least recently used mailbox goes first.
actor IMAPSnapshotCache {
    typealias Snapshot = (mailbox: MailUIDMailbox, entries: [MailUIDEntry])

    private struct Key: Hashable {
        let address: String
        let folder: MailFolder
    }

    private struct Kept {
        let state: Int64
        let snapshot: Snapshot
        var used: UInt64
    }

    /// The most entries kept, summed over the mailboxes.
    let capacity: Int
    private var kept: [Key: Kept] = [:]
    private var entryCount = 0
    private var uses: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The snapshot of `folder` of `address` at `state`: the kept one when it was taken at `state`, else `load()`'s,
    /// kept unless a look at a later state was kept meanwhile.
    func snapshot(
        address: String, folder: MailFolder, state: Int64, load: @Sendable () async throws -> Snapshot
    ) async throws -> Snapshot {
        let key = Key(address: address, folder: folder)
        uses += 1
        if let found = kept[key], found.state == state {
            kept[key]?.used = uses
            return found.snapshot
        }
        let snapshot = try await load()
        if let newer = kept[key], newer.state > state { return snapshot }
        entryCount -= kept[key]?.snapshot.entries.count ?? 0
        kept[key] = nil
        guard snapshot.entries.count <= capacity else { return snapshot }
        while entryCount + snapshot.entries.count > capacity,
            let oldest = kept.min(by: { $0.value.used < $1.value.used })?.key
        {
            entryCount -= kept.removeValue(forKey: oldest)?.snapshot.entries.count ?? 0
        }
        kept[key] = Kept(state: state, snapshot: snapshot, used: uses)
        entryCount += snapshot.entries.count
        return snapshot
    }

    /// How many mailboxes are kept (for tests).
    var mailboxCount: Int { kept.count }
}

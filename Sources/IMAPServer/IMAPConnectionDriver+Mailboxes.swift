import IMAP
import MIME
import MailDoorServer
import MailStore

/// The commands on mailboxes (RFC 9051 §6.3, §6.4.1–§6.4.2): selecting, listing, status, appending, and making,
/// deleting, renaming and subscribing to one, each through the store's folders (decision 35), so that JMAP and the
/// web inbox see the same tree.
extension IMAPConnectionDriver {
    /// Runs `command` for the signed-in holder; a failure of the store is `NO [UNAVAILABLE]`, never its text.
    func run(_ command: IMAPCommand) async -> IMAPCommandResult {
        guard let holder else { return IMAPCommandResult(status: IMAPStatusResponse(.bad, "Sign in first")) }
        do {
            return try await run(command.kind, tag: command.tag, holder: holder)
        } catch {
            return failed(error)
        }
    }

    /// A command's answer when the store failed under it.
    func failed(_ error: any Error) -> IMAPCommandResult {
        if case MailStoreError.quotaExceeded = error {
            return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .overQuota, "The mailbox is full"))
        }
        if case MailStoreError.keywordLimit(let limit) = error {
            let text = Self.refusal(limit, store.keywordLimits)
            return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .limit, text))
        }
        if let error = error as? MailFolderError {
            return IMAPCommandResult(status: Self.refusal(error, store.folderLimits))
        }
        logger.error("imap command failed", metadata: ["error": .string(String(describing: type(of: error)))])
        return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .unavailable, "Temporary failure, try again"))
    }

    /// The text of `NO [LIMIT]` for a keyword cap (RFC 5530: a server limit, not the client's error).
    static func refusal(_ limit: MailKeywordLimits.Limit, _ limits: MailKeywordLimits) -> String {
        switch limit {
        case .keywordLength: return "A keyword may be at most \(limits.maxKeywordBytes) bytes"
        case .perMessage: return "A message may carry at most \(limits.maxPerMessage) keywords"
        case .perAddress: return "The mailboxes may hold at most \(limits.maxPerAddress) distinct keywords"
        }
    }

    /// The `NO` of a folder write the store refused (RFC 5530's codes, as Dovecot answers).
    static func refusal(_ error: MailFolderError, _ limits: MailFolderLimits) -> IMAPStatusResponse {
        switch error {
        case .noSuchFolder: return IMAPStatusResponse(.no, code: .nonExistent, "No such mailbox")
        case .exists: return IMAPStatusResponse(.no, code: .alreadyExists, "Mailbox already exists")
        case .fixed:
            return IMAPStatusResponse(
                .no, code: .cannot, "INBOX, Drafts, Sent, Trash, Junk and Archive cannot be renamed or deleted")
        case .hasChildren:
            return IMAPStatusResponse(.no, code: .hasChildren, "Delete the mailboxes under it first")
        case .notEmpty: return IMAPStatusResponse(.no, code: .cannot, "The mailbox holds messages")
        case .underItself:
            return IMAPStatusResponse(.no, code: .cannot, "A mailbox cannot be moved under itself")
        case .name: return IMAPStatusResponse(.no, code: .cannot, "Invalid mailbox name")
        case .limit(.count):
            return IMAPStatusResponse(.no, code: .limit, "At most \(limits.maxFolders) mailboxes may be made")
        case .limit(.nameLength):
            return IMAPStatusResponse(.no, code: .limit, "A mailbox name may be at most \(limits.maxNameBytes) bytes")
        case .limit(.depth):
            return IMAPStatusResponse(.no, code: .limit, "Mailboxes may be at most \(limits.maxDepth) levels deep")
        }
    }

    /// The holder's folders as IMAP names them, with the subscriptions when `subscriptions` (LIST, LSUB).
    func mailboxNames(_ holder: MailboxHolder, subscriptions: Bool = false) async throws -> IMAPMailboxNames {
        IMAPMailboxNames(
            tree: try await store.folders(address: holder.address),
            subscriptions: subscriptions ? try await store.subscriptions(address: holder.address) : [])
    }

    private func run(_ kind: IMAPCommandKind, tag: String, holder: MailboxHolder) async throws -> IMAPCommandResult {
        switch kind {
        case .select(let name): return try await select(name, readOnly: false, holder: holder)
        case .examine(let name): return try await select(name, readOnly: true, holder: holder)
        case .list(let list): return try await self.list(list, holder: holder)
        case .lsub(let reference, let pattern):
            let items = try await mailboxNames(holder, subscriptions: true).lsub(reference: reference, pattern: pattern)
            return IMAPCommandResult(items.map(IMAPUntaggedResponse.lsub), status: IMAPStatusResponse(.ok, "LSUB completed"))
        case .namespace:
            return IMAPCommandResult(
                [.namespace(personal: [IMAPNamespace(prefix: "", delimiter: IMAPMailboxNames.delimiter)], otherUsers: nil, shared: nil)],
                status: IMAPStatusResponse(.ok, "NAMESPACE completed"))
        case .status(let name, let items):
            guard let folder = try await mailboxNames(holder).folder(name) else { return Self.noSuchMailbox }
            return IMAPCommandResult(
                [try await status(folder, name: name, items: items, holder: holder)],
                status: Self.statusCompleted)
        case .create(let name, let use):
            return try await create(name, use: use, holder: holder)
        case .delete(let name):
            guard let folder = try await mailboxNames(holder).folder(name) else { return Self.noSuchMailbox }
            // Its messages go with it (RFC 9051 §6.3.5); a session that had it selected sees them expunged.
            try await store.deleteFolder(address: holder.address, folder, removingMessages: true)
            return IMAPCommandResult(try await refresh(), status: IMAPStatusResponse(.ok, "DELETE completed"))
        case .rename(let from, let to):
            guard let old = MailFolderTree.components(from.name), let new = MailFolderTree.components(to.name) else {
                return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .cannot, "Invalid mailbox name"))
            }
            try await store.renameFolder(address: holder.address, from: old, to: new, now: now())
            return IMAPCommandResult(status: IMAPStatusResponse(.ok, "RENAME completed"))
        case .subscribe(let name), .unsubscribe(let name):
            // A name, whether or not a mailbox has it (RFC 9051 §6.3.7); the six fixed ones are always subscribed.
            guard let path = MailFolderTree.components(name.name) else {
                return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .cannot, "Invalid mailbox name"))
            }
            if case .subscribe = kind {
                try await store.setSubscribed(address: holder.address, path: path, true)
            } else {
                try await store.setSubscribed(address: holder.address, path: path, false)
            }
            return IMAPCommandResult(status: IMAPStatusResponse(.ok, "Completed"))
        case .append(let name, let flags, let date, let message):
            return try await append(message, to: name, flags: flags, date: date, holder: holder)
        case .noop, .check:
            return IMAPCommandResult(try await refresh(), status: IMAPStatusResponse(.ok, "Completed"))
        case .close, .unselect:
            if case .close = kind, let view, !view.readOnly { _ = try await expunge(uids: nil, holder: holder) }
            self.view = nil
            return IMAPCommandResult(status: IMAPStatusResponse(.ok, "Completed"))
        case .expunge:
            return try await expungeCommand(uids: nil, holder: holder)
        case .uidExpunge(let set):
            return try await expungeCommand(uids: set, holder: holder)
        case .fetch(let set, let attributes, let uid):
            return try await fetch(set, attributes, uid: uid, holder: holder)
        case .store(let set, let action, let uid):
            return try await store(set, action, uid: uid, holder: holder)
        case .search(let search, let uid):
            return try await self.search(search, uid: uid, tag: tag, holder: holder)
        case .sort(let sort, let uid):
            return try await self.sort(sort, uid: uid, tag: tag, holder: holder)
        case .thread(let thread, let uid):
            return try await self.thread(thread, uid: uid, holder: holder)
        case .copy(let set, let name, let uid):
            return try await transfer(set, to: name, uid: uid, moving: false, holder: holder)
        case .move(let set, let name, let uid):
            return try await transfer(set, to: name, uid: uid, moving: true, holder: holder)
        case .capability, .id, .logout, .startTLS, .authenticate, .login, .enable, .idle:
            return IMAPCommandResult(status: IMAPStatusResponse(.bad, "Unexpected command"))
        }
    }

    static var noSuchMailbox: IMAPCommandResult {
        IMAPCommandResult(status: IMAPStatusResponse(.no, code: .nonExistent, "No such mailbox"))
    }

    private func select(_ name: IMAPMailboxName, readOnly: Bool, holder: MailboxHolder) async throws
        -> IMAPCommandResult
    {
        view = nil
        saved = []
        guard let folder = try await mailboxNames(holder).folder(name) else { return Self.noSuchMailbox }
        let state = try await store.state(address: holder.address)  // before the look: see refresh()
        let snapshot = try await snapshot(address: holder.address, folder: folder, state: state)
        var selected = IMAPMailboxView(
            folder: folder, readOnly: readOnly, mailbox: snapshot.mailbox, entries: snapshot.entries)
        selected.lookedAtState = state
        let flags = selected.flagsUpdate() ?? .flags(IMAPFlag.systemFlags)
        view = selected
        try await takeRecent(holder: holder)
        var responses: [IMAPUntaggedResponse] = [
            flags,
            .exists(UInt32(selected.entries.count)),
            .recent(view?.recentCount ?? 0),
            .condition(
                IMAPStatusResponse(
                    .ok, code: .permanentFlags(readOnly ? [] : IMAPFlag.systemFlags, allowsKeywords: !readOnly),
                    "Flags permitted")),
            .condition(IMAPStatusResponse(.ok, code: .uidValidity(snapshot.mailbox.uidValidity), "UIDs valid")),
            .condition(IMAPStatusResponse(.ok, code: .uidNext(snapshot.mailbox.uidNext), "Predicted next UID")),
        ]
        if let unseen = selected.entries.firstIndex(where: { !$0.keywords.contains("$seen") }) {
            responses.append(.condition(IMAPStatusResponse(.ok, code: .unseen(UInt32(unseen + 1)), "First unseen")))
        }
        let status = readOnly
            ? IMAPStatusResponse(.ok, code: .readOnly, "EXAMINE completed")
            : IMAPStatusResponse(.ok, code: .readWrite, "SELECT completed")
        return IMAPCommandResult(responses, status: status)
    }

    /// Makes the messages of `view` above what any session was told is recent this session's recent ones (RFC 3501
    /// §2.3.2): claimed in the store when read-write, so that no other session sees them recent; only counted when
    /// read-only (`EXAMINE`), so that the next `SELECT` still does. One read when nothing new arrived.
    func takeRecent(holder: MailboxHolder) async throws {
        guard let selected = view, selected.largestUID > selected.recentClaimedThrough else { return }
        let (largest, folder) = (selected.largestUID, selected.folder)
        view?.recentClaimedThrough = largest
        let claimed = try await store.recentUID(address: holder.address, folder: folder)
        guard claimed < largest else { return }
        let taken = selected.readOnly
            ? (claimed + 1)...largest
            : try await store.claimRecent(address: holder.address, folder: folder, through: largest)
        // Claimed for this session: kept unless the client selected another mailbox meanwhile.
        if let taken, view?.folder == folder { view?.addRecent(taken) }
    }

    private func list(_ list: IMAPListCommand, holder: MailboxHolder) async throws -> IMAPCommandResult {
        if list.patterns == [""] && list.selectionOptions.isEmpty {
            // The hierarchy delimiter and root (RFC 9051 §6.3.9).
            let root = IMAPListItem(attributes: ["\\Noselect"], delimiter: IMAPMailboxNames.delimiter, name: IMAPMailboxName(""))
            return IMAPCommandResult([.list(root)], status: IMAPStatusResponse(.ok, "LIST completed"))
        }
        var statusItems: [IMAPStatusItem]?
        for option in list.returnOptions { if case .status(let items) = option { statusItems = items } }
        var responses: [IMAPUntaggedResponse] = []
        for listed in try await mailboxNames(holder, subscriptions: true).list(list) {
            responses.append(.list(listed.item))
            if let statusItems, let folder = listed.folder {
                responses.append(try await status(folder, name: listed.item.name, items: statusItems, holder: holder))
            }
        }
        return IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, "LIST completed"))
    }

    /// `CREATE` (RFC 9051 §6.3.4), with any missing mailbox above it. RFC 6154's `USE` is refused with `[USEATTR]`:
    /// each special use belongs to its fixed folder, one per role, as JMAP has it (decision 35).
    private func create(_ name: IMAPMailboxName, use: [String], holder: MailboxHolder) async throws
        -> IMAPCommandResult
    {
        guard let path = MailFolderTree.components(name.name) else {
            return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .cannot, "Invalid mailbox name"))
        }
        if let attribute = use.first {
            let tree = try await store.folders(address: holder.address)
            guard tree.folder(at: path) == nil else {
                return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .alreadyExists, "Mailbox already exists"))
            }
            let holding = MailFolder.fixed.first {
                IMAPMailboxNames.specialUse($0).contains { $0.lowercased() == attribute.lowercased() }
            }
            let text = holding.flatMap(tree.fullName(of:)).map { "\(attribute) is \($0)'s, each special use has one mailbox" }
                ?? "No mailbox can be \(attribute) here"
            return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .useAttr, text))
        }
        _ = try await store.createFolder(address: holder.address, path: path, now: now())
        return IMAPCommandResult(status: IMAPStatusResponse(.ok, "CREATE completed"))
    }

    private func status(
        _ folder: MailFolder, name: IMAPMailboxName, items: [IMAPStatusItem], holder: MailboxHolder
    ) async throws -> IMAPUntaggedResponse {
        let snapshot = try await store.uidSnapshot(address: holder.address, folder: folder, now: now())
        let recent = items.contains(.recent) ? try await store.recentUID(address: holder.address, folder: folder) : 0
        return Self.status(name, items, of: snapshot, recent: recent)
    }

    static var statusCompleted: IMAPStatusResponse { IMAPStatusResponse(.ok, "STATUS completed") }

    /// The `* STATUS` of `items` for the mailbox `name` whose numbering and messages are `snapshot`, `recent` the
    /// highest UID a session claimed as recent.
    static func status(
        _ name: IMAPMailboxName, _ items: [IMAPStatusItem], of snapshot: (mailbox: MailUIDMailbox, entries: [MailUIDEntry]),
        recent: UInt32
    ) -> IMAPUntaggedResponse {
        let entries = snapshot.entries
        let values = items.map { item -> IMAPStatusValue in
            switch item {
            case .messages: return IMAPStatusValue(item, UInt64(entries.count))
            case .uidNext: return IMAPStatusValue(item, UInt64(snapshot.mailbox.uidNext))
            case .uidValidity: return IMAPStatusValue(item, UInt64(snapshot.mailbox.uidValidity))
            case .unseen: return IMAPStatusValue(item, UInt64(entries.filter { !$0.keywords.contains("$seen") }.count))
            case .deleted: return IMAPStatusValue(item, UInt64(entries.filter { $0.keywords.contains("$deleted") }.count))
            case .size: return IMAPStatusValue(item, UInt64(entries.reduce(0) { $0 + $1.size }))
            case .recent: return IMAPStatusValue(item, UInt64(entries.count(where: { $0.uid > recent })))
            }
        }
        return .mailboxStatus(name, values)
    }

    private func append(
        _ message: [UInt8], to name: IMAPMailboxName, flags: [IMAPFlag], date: IMAPDateTime?, holder: MailboxHolder
    ) async throws -> IMAPCommandResult {
        guard let folder = try await mailboxNames(holder).folder(name) else {
            return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .tryCreate, "No such mailbox"))
        }
        guard !message.isEmpty, let parsed = try? MIMEParser.parse(message) else {
            return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .parse, "The message cannot be read"))
        }
        let keywords = Set(flags.compactMap(\.keyword))
        let record = NewMailMessage(parsed, envelopeFrom: holder.address, raw: message)
        let id = try await store.deliver(
            record, to: [MailStore.Recipient(address: holder.address, quota: holder.quota)], folder: folder,
            keywords: keywords, isRead: keywords.contains("$seen"), origin: folder == .inbox ? .received : .written,
            now: date?.seconds ?? now())[0]
        let snapshot = try await store.uidSnapshot(address: holder.address, folder: folder, now: now())
        let uid = try await store.uids(address: holder.address, ids: [id])[id] ?? 0
        var responses: [IMAPUntaggedResponse] = []
        if view?.folder == folder { responses = try await refresh() }
        return IMAPCommandResult(
            responses,
            status: IMAPStatusResponse(
                .ok, code: .appendUID(uidValidity: snapshot.mailbox.uidValidity, uid: uid), "APPEND completed"))
    }
}

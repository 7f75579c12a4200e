import IMAP
import MailDoorServer
import MailStore

/// The commands on the selected mailbox's messages (RFC 9051 §6.4): FETCH, STORE, SEARCH, COPY, MOVE, EXPUNGE and
/// their UID forms. Each first brings the client up to date (``refresh()``), then works on the messages as it knows
/// them.
extension IMAPConnectionDriver {
    func fetch(_ set: IMAPSequenceSet, _ attributes: [IMAPFetchAttribute], uid: Bool, holder: MailboxHolder)
        async throws -> IMAPCommandResult
    {
        let wantsEnvelope = attributes.contains(.envelope)
        var first: (raws: [String: [UInt8]], count: Int)?
        var responses: [IMAPUntaggedResponse] = []
        if IMAPMessageRenderer.needsBytes(attributes) && !wantsEnvelope {
            first = try await firstBatchIfCurrent(set, uid: uid, holder: holder)
        }
        if first == nil { responses = try await refresh(holdingExpunges: !uid) }
        guard let view else { return Self.noSelection }
        let indexes = view.indexes(set, uid: uid, saved: saved)
        let kept = wantsEnvelope ? envelopes.envelopes(indexes.lazy.map { view.entries[$0].id }) : []
        let cursor = IMAPFetchCursor(
            attributes: attributes, uid: uid, holder: holder, indexes: indexes, first: first,
            kept: kept, readOnly: view.readOnly)
        return try await fetchPart(cursor, leading: responses)
    }

    /// The next part of the FETCH under way (``IMAPRequest/continueCommand``).
    func continueCommand() async -> IMAPCommandResult {
        guard let cursor = fetching.take() else {
            return IMAPCommandResult(status: IMAPStatusResponse(.bad, "Nothing to continue"))
        }
        do {
            return try await fetchPart(cursor)
        } catch {
            return failed(error)
        }
    }

    /// Answers `cursor`'s messages from where it stands until a part's bound (``IMAPFetchCursor/partBytes``, ``
    /// IMAPFetchCursor/partMessages``): their responses, and the tagged `OK` when they were the last, else the cursor
    /// kept for ``continueCommand()``. The flags a part sets (`\Seen`) are written before its answer goes out.
    private func fetchPart(_ cursor: consuming IMAPFetchCursor, leading: [IMAPUntaggedResponse] = []) async throws
        -> IMAPCommandResult
    {
        guard var view else { return Self.noSelection }
        var part = IMAPFetchPart(responses: leading)
        while !cursor.isFinished && !part.isFull {
            if cursor.needsBatch {
                cursor.batch = [:]  // the last batch's bytes go before the next batch's come
                let ids = Self.readAhead(cursor.reads[cursor.readCount...], of: view.entries)
                cursor.batch = try await store.raws(address: cursor.holder.address, ids: ids)
                cursor.batchEnd = cursor.readCount + ids.count
            }
            cursor.answerNext(view: &view, into: &part)
        }
        envelopes.keep(part.parsed)
        if !part.seenUpdates.isEmpty { _ = try await store.setKeywords(address: cursor.holder.address, part.seenUpdates) }
        self.view = view
        guard cursor.isFinished else {
            fetching = cursor
            return .part(part.responses)
        }
        return IMAPCommandResult(part.responses, status: Self.fetchCompleted)
    }

    /// The first batch of bytes a FETCH of `set` sends, read in the same trip to the store as the address's state,
    /// when that state is the one the client's view was last looked at (``refresh()`` would then find nothing to
    /// tell): the batch and how many of the FETCH's messages it covers. Nil when the view may be behind, or it
    /// changed while the store was read: the FETCH then refreshes first and reads its bytes after, as before.
    /// An mbsync's `UID FETCH n (BODY.PEEK[])` per message so costs one read instead of two.
    private func firstBatchIfCurrent(_ set: IMAPSequenceSet, uid: Bool, holder: MailboxHolder) async throws
        -> (raws: [String: [UInt8]], count: Int)?
    {
        guard let before = view, !before.holdsExpunges, let looked = before.lookedAtState else { return nil }
        let indexes = before.indexes(set, uid: uid, saved: saved)
        guard !indexes.isEmpty else { return nil }
        let ids = Self.readAhead(indexes[...], of: before.entries)
        let read = try await store.stateAndRaws(address: holder.address, ids: ids)
        guard read.state == looked, let after = view, after == before else { return nil }
        return (read.raws, ids.count)
    }

    func store(_ set: IMAPSequenceSet, _ action: IMAPStoreAction, uid: Bool, holder: MailboxHolder) async throws
        -> IMAPCommandResult
    {
        var responses = try await refresh(holdingExpunges: !uid)
        guard var view else { return Self.noSelection }
        guard !view.readOnly else {
            return IMAPCommandResult(responses, status: IMAPStatusResponse(.no, code: .readOnly, "The mailbox is read-only"))
        }
        let keywords = Set(action.flags.compactMap(\.keyword))
        if action.mode != .remove, let flags = view.flagsUpdate(adding: keywords) { responses.append(flags) }
        var updates: [(id: String, keywords: Set<String>)] = []
        for index in view.indexes(set, uid: uid, saved: saved) {
            let entry = view.entries[index]
            var next = entry.keywords
            switch action.mode {
            case .replace: next = keywords
            case .add: next.formUnion(keywords)
            case .remove: next.subtract(keywords)
            }
            if next != entry.keywords { updates.append((entry.id, next)) }
            view.setKeywords(next, at: index)
            if !action.silent {
                var items: [IMAPFetchItem] = [.flags(view.flags(next, uid: entry.uid))]
                if uid { items.insert(.uid(entry.uid), at: 0) }
                responses.append(.fetch(UInt32(index + 1), items))
            }
        }
        _ = try await store.setKeywords(address: holder.address, updates)
        self.view = view
        return IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, "STORE completed"))
    }

    func search(_ command: IMAPSearchCommand, uid: Bool, tag: String, holder: MailboxHolder) async throws
        -> IMAPCommandResult
    {
        if let refusal = searchStringRefusal(command.key) { return refusal }
        var responses = try await refresh(holdingExpunges: !uid)
        guard let view else { return Self.noSelection }
        let meter = searchMeter(holder)
        let found: [Int]?
        do {
            found = try await self.found(command.key, charset: command.charset, in: view, holder: holder, meter: meter)
        } catch let stop as IMAPSearchStop {
            return IMAPCommandResult(responses, status: stop.status)
        }
        guard let found else { return IMAPCommandResult(responses, status: Self.badCharset) }
        if command.returnOptions?.contains(.save) == true { saved = found.map { view.entries[$0].uid } }
        responses.append(Self.searchResponse(found, command, in: view.entries, uid: uid, tag: tag))
        return IMAPCommandResult(responses, status: Self.searchCompleted)
    }

    /// The `* SEARCH` (or, with `RETURN`, `* ESEARCH`) of the messages at `found` of `entries`.
    static func searchResponse(
        _ found: [Int], _ command: IMAPSearchCommand, in entries: [MailUIDEntry], uid: Bool, tag: String
    ) -> IMAPUntaggedResponse {
        let numbers = found.map { uid ? entries[$0].uid : UInt32($0 + 1) }
        guard let options = command.returnOptions else { return .search(numbers) }
        return .esearch(Self.esearch(numbers, options, tag: tag, uid: uid, sorted: false))
    }

    static var searchCompleted: IMAPStatusResponse { IMAPStatusResponse(.ok, "SEARCH completed") }
    static var fetchCompleted: IMAPStatusResponse { IMAPStatusResponse(.ok, "FETCH completed") }

    /// The `ESEARCH` answer (RFC 4731) of `numbers` for `options`; `sorted` (ESORT, RFC 5267) takes `MIN` and `MAX`
    /// as the first and last in the numbers' order and keeps that order in `ALL`.
    static func esearch(_ numbers: [UInt32], _ options: [IMAPSearchReturnOption], tag: String, uid: Bool, sorted: Bool)
        -> IMAPESearchResult
    {
        let all = options.isEmpty || options.contains(.all)
        return IMAPESearchResult(
            tag: tag, uid: uid, min: options.contains(.min) ? (sorted ? numbers.first : numbers.min()) : nil,
            max: options.contains(.max) ? (sorted ? numbers.last : numbers.max()) : nil,
            count: options.contains(.count) ? UInt32(numbers.count) : nil,
            all: all && !numbers.isEmpty ? IMAPSequenceSet.ranges(of: numbers, keepingOrder: sorted) : nil)
    }

    /// `SORT` (RFC 5256): the messages the search finds, ordered by ``IMAPSort``; `* SORT` with their numbers, or
    /// with `RETURN (...)` (ESORT, RFC 5267) `* ESEARCH` in sort order.
    func sort(_ command: IMAPSortCommand, uid: Bool, tag: String, holder: MailboxHolder) async throws
        -> IMAPCommandResult
    {
        if let refusal = searchStringRefusal(command.key) { return refusal }
        var responses = try await refresh(holdingExpunges: !uid)
        guard let view else { return Self.noSelection }
        let needsBytes = command.criteria.contains { $0.key != .arrival && $0.key != .size }
        let (found, keys): ([Int], [IMAPSort.Keys])
        let sortable = try await sortable(
            command.key, charset: command.charset, in: view, needsBytes: needsBytes, holder: holder)
        switch sortable {
        case .found(let indexes, let read): (found, keys) = (indexes, read)
        case .refused(let status): return IMAPCommandResult(responses, status: status)
        }
        let ordered = IMAPSort.order(keys, by: command.criteria).map { found[$0] }
        let numbers = ordered.map { uid ? view.entries[$0].uid : UInt32($0 + 1) }
        if let options = command.returnOptions {
            if options.contains(.save) { saved = ordered.map { view.entries[$0].uid } }
            responses.append(.esearch(Self.esearch(numbers, options, tag: tag, uid: uid, sorted: true)))
        } else {
            responses.append(.sort(numbers))
        }
        return IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, "SORT completed"))
    }

    /// `THREAD=ORDEREDSUBJECT` (RFC 5256): the messages the search finds, in ``IMAPSort``'s threads.
    func thread(_ command: IMAPThreadCommand, uid: Bool, holder: MailboxHolder) async throws -> IMAPCommandResult {
        if let refusal = searchStringRefusal(command.key) { return refusal }
        var responses = try await refresh(holdingExpunges: !uid)
        guard let view else { return Self.noSelection }
        let (found, keys): ([Int], [IMAPSort.Keys])
        switch try await sortable(command.key, charset: command.charset, in: view, needsBytes: true, holder: holder) {
        case .found(let indexes, let read): (found, keys) = (indexes, read)
        case .refused(let status): return IMAPCommandResult(responses, status: status)
        }
        responses.append(
            .thread(
                IMAPSort.orderedSubjectThreads(keys) { position in
                    uid ? view.entries[found[position]].uid : UInt32(found[position] + 1)
                }))
        return IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, "THREAD completed"))
    }

    /// What SORT and THREAD order: the messages a search finds with their sort keys, or why there are none to order.
    private enum Sortable {
        case found([Int], [IMAPSort.Keys])
        /// `NO [BADCHARSET]`, or `NO [LIMIT]` when the meter stopped the search or the keys' reads.
        case refused(IMAPStatusResponse)
    }

    /// The messages of `view` that `key` finds and their sort keys (their bytes read when `needsBytes`), both under
    /// one command's meter.
    private func sortable(
        _ key: IMAPSearchKey, charset: String, in view: IMAPMailboxView, needsBytes: Bool, holder: MailboxHolder
    ) async throws -> Sortable {
        let meter = searchMeter(holder)
        do {
            guard let found = try await found(key, charset: charset, in: view, holder: holder, meter: meter) else {
                return .refused(Self.badCharset)
            }
            let keys = try await sortKeys(found, in: view, needsBytes: needsBytes, holder: holder, meter: meter)
            return .found(found, keys)
        } catch let stop as IMAPSearchStop {
            return .refused(stop.status)
        }
    }

    /// SORT's keys of the messages at `indexes`, their bytes read only when `needsBytes`, each charged to `meter`.
    private func sortKeys(
        _ indexes: [Int], in view: IMAPMailboxView, needsBytes: Bool, holder: MailboxHolder, meter: IMAPSearchMeter
    ) async throws -> [IMAPSort.Keys] {
        var keys: [IMAPSort.Keys] = []
        for index in indexes {
            let entry = view.entries[index]
            if needsBytes { try meter.charge(Int(entry.size)) }
            let raw = needsBytes ? try await store.raw(address: holder.address, id: entry.id) : nil
            keys.append(IMAPSort.keys(entry, raw: raw))
        }
        return keys
    }

    static var badCharset: IMAPStatusResponse {
        IMAPStatusResponse(.no, code: .badCharset(["US-ASCII", "UTF-8"]), "Unknown charset")
    }

    /// `NO [LIMIT]` when a string of `key` is longer than ``IMAPLimits/maxSearchStringBytes``: refused before any
    /// mail is read. Nil when every string is within it.
    private func searchStringRefusal(_ key: IMAPSearchKey) -> IMAPCommandResult? {
        guard key.longestStringBytes > searchBudget.limits.maxSearchStringBytes else { return nil }
        return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .limit, "Search string too long"))
    }

    /// A new command's meter: ``IMAPLimits/maxSearchBytesPerCommand`` and the holder's share of the listener's
    /// ``IMAPSearchBudget``, stopped when the connection closes.
    private func searchMeter(_ holder: MailboxHolder) -> IMAPSearchMeter {
        IMAPSearchMeter(
            budget: searchBudget, account: holder.address, commandLimit: searchBudget.limits.maxSearchBytesPerCommand
        ) { [self] in closed.load(ordering: .relaxed) }
    }

    /// The indexes of `view`'s messages `key` matches; nil for a charset other than US-ASCII and UTF-8.
    /// - Throws: ``IMAPSearchStop`` when `meter` stops the search; the store's errors.
    private func found(
        _ key: IMAPSearchKey, charset: String?, in view: IMAPMailboxView, holder: MailboxHolder,
        meter: IMAPSearchMeter
    ) async throws -> [Int]? {
        if let charset, !["US-ASCII", "UTF-8"].contains(charset.uppercased()) { return nil }
        let store = self.store
        let address = holder.address
        let entries = view.entries
        let search = IMAPSearch(
            view: view, saved: saved, meter: meter,
            stored: { filter in
                let found = try await store.query(
                    address: address, filter: filter, sort: [], position: 0, limit: Int(Int64.max), countTotal: false)
                return Set(found.ids)
            },
            message: { index in
                try await store.raw(address: address, id: entries[index].id).map(IMAPMessageRenderer.init(raw:))
            })
        return try await search.run(key)
    }

    func transfer(
        _ set: IMAPSequenceSet, to name: IMAPMailboxName, uid: Bool, moving: Bool, holder: MailboxHolder
    ) async throws -> IMAPCommandResult {
        var responses = try await refresh()
        guard let view else { return Self.noSelection }
        guard let folder = try await mailboxNames(holder).folder(name) else {
            return IMAPCommandResult(responses, status: IMAPStatusResponse(.no, code: .tryCreate, "No such mailbox"))
        }
        if moving && view.readOnly {
            return IMAPCommandResult(responses, status: IMAPStatusResponse(.no, code: .readOnly, "The mailbox is read-only"))
        }
        let chosen = view.indexes(set, uid: uid, saved: saved).map { view.entries[$0] }
        guard !chosen.isEmpty else {
            return IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, moving ? "MOVE completed" : "COPY completed"))
        }
        let ids = chosen.map(\.id)
        let destination: [String: UInt32]
        if moving {
            destination = try await store.move(address: holder.address, ids: ids, to: folder)
        } else {
            destination = try await store.copy(address: holder.address, ids: ids, to: folder, quota: holder.quota)
        }
        let mailbox = try await store.uidSnapshot(address: holder.address, folder: folder, now: now()).mailbox
        let pairs = chosen.compactMap { entry in destination[entry.id].map { (entry.uid, $0) } }
        let code = pairs.isEmpty ? nil : IMAPResponseCode.copyUID(
            uidValidity: mailbox.uidValidity, source: IMAPSequenceSet.ranges(of: pairs.map(\.0)),
            destination: IMAPSequenceSet.ranges(of: pairs.map(\.1)))
        if moving {
            // RFC 6851 §4.3: the COPYUID goes in an untagged OK before the EXPUNGEs.
            if let code { responses.append(.condition(IMAPStatusResponse(.ok, code: code, "Moved"))) }
            responses += try await refresh()
            return IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, "MOVE completed"))
        }
        if view.folder == folder { responses += try await refresh() }
        return IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, code: code, "COPY completed"))
    }

    func expungeCommand(uids: IMAPSequenceSet?, holder: MailboxHolder) async throws -> IMAPCommandResult {
        guard let view else { return Self.noSelection }
        guard !view.readOnly else {
            return IMAPCommandResult(status: IMAPStatusResponse(.no, code: .readOnly, "The mailbox is read-only"))
        }
        let responses = try await expunge(uids: uids, holder: holder)
        return IMAPCommandResult(responses, status: IMAPStatusResponse(.ok, "EXPUNGE completed"))
    }

    /// Deletes the messages marked `\Deleted` (of `uids` only, when given) for every door, and returns the
    /// responses that tell the client (its `EXPUNGE`s, and any other change since its last look).
    func expunge(uids: IMAPSequenceSet?, holder: MailboxHolder) async throws -> [IMAPUntaggedResponse] {
        var responses = try await refresh()
        guard let view else { return responses }
        let candidates = uids.map { view.indexes($0, uid: true, saved: saved).map { view.entries[$0] } } ?? view.entries
        let doomed = candidates.filter { $0.keywords.contains("$deleted") }.map(\.id)
        _ = try await store.delete(address: holder.address, ids: doomed)
        responses += try await refresh()
        return responses
    }

    /// The ids of the messages at `indexes` whose bytes one read fetches: at most 256 messages and 8 MiB (by their
    /// stored sizes), and always the first.
    static func readAhead(_ indexes: ArraySlice<Int>, of entries: [MailUIDEntry]) -> [String] {
        var ids: [String] = []
        var bytes = 0
        for index in indexes {
            let size = Int(entries[index].size)
            if !ids.isEmpty && (ids.count == 256 || bytes + size > 8 << 20) { break }
            ids.append(entries[index].id)
            bytes += size
        }
        return ids
    }

    static var noSelection: IMAPCommandResult {
        IMAPCommandResult(status: IMAPStatusResponse(.bad, "No mailbox selected"))
    }
}

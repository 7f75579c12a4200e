import IMAP
import Logging
import MailDoorServer
import MailStore
import SASL
import Synchronization

/// One connection's side of IMAP that needs the store: the sign-in checks, every mailbox command and the selected
/// mailbox's view. An actor, so that a command and an IDLE's look at the store never run at once; everything here
/// runs off the event loops, in the tasks ``MailService`` starts.
actor IMAPConnectionDriver {
    let store: MailStore
    /// The listener's shared looks at selected mailboxes (``snapshot(of:)``).
    let snapshots: IMAPSnapshotCache
    /// The listener's parsed envelopes (FETCH).
    let envelopes: IMAPEnvelopeCache
    /// The listener's search allowance per account, and the search limits (``IMAPSearchMeter``).
    let searchBudget: IMAPSearchBudget
    /// The listener's count of commands its loops answered themselves (``answerNow(_:)``).
    let loopAnswers: IMAPLoopAnswers
    /// Set once the connection closed (``connectionClosed()``): a search under way stops at its next message.
    nonisolated let closed = Atomic<Bool>(false)
    let signIn: any MailDoorSignIn
    /// The client's address (the PROXY header's when a balancer sent one).
    let client: String
    /// The wall clock, Unix seconds.
    let now: @Sendable () -> Int64
    let logger: Logger
    /// The mailbox the session acts for, once signed in.
    var holder: MailboxHolder? { didSet { mirror.withLock { [holder] in $0.holder = holder } } }
    /// The selected mailbox, as the client knows it.
    var view: IMAPMailboxView? { didSet { mirror.withLock { [view] in $0.view = view } } }
    /// The UIDs of the last `SEARCH ... RETURN (SAVE)` (RFC 5182's `$`).
    var saved: [UInt32] = [] { didSet { mirror.withLock { [saved] in $0.saved = saved } } }
    /// What the connection's loop reads of the three above to answer a command itself (``answerNow(_:)``), and how
    /// many of the driver's tasks are out.
    nonisolated let mirror = Mutex(IMAPDriverMirror())
    /// The `AUTHENTICATE PLAIN`/`LOGIN` exchange under way.
    private var sasl = PasswordSASL()
    /// The FETCH answered in parts, between two of them.
    var fetching: IMAPFetchCursor?
    /// The one task of an IDLE (``startIdle(notify:end:)``), which ``endIdle()`` cancels.
    nonisolated let idleWatch = Mutex<Task<Void, Never>?>(nil)

    init(
        store: MailStore, snapshots: IMAPSnapshotCache, envelopes: IMAPEnvelopeCache, signIn: any MailDoorSignIn,
        client: String, now: @escaping @Sendable () -> Int64, logger: Logger,
        searchBudget: IMAPSearchBudget = IMAPSearchBudget(limits: IMAPLimits()),
        loopAnswers: IMAPLoopAnswers = IMAPLoopAnswers()
    ) {
        self.loopAnswers = loopAnswers
        self.store = store
        self.snapshots = snapshots
        self.envelopes = envelopes
        self.searchBudget = searchBudget
        self.signIn = signIn
        self.client = client
        self.now = now
        self.logger = logger
    }

    // MARK: - Sign-in

    func login(username: String, password: String) async -> IMAPAuthenticationOutcome {
        outcome(await signIn.attempt(username: username, password: password, client: client, logger: logger))
    }

    /// A sign-in with an OAuth access token (OAUTHBEARER, XOAUTH2): refused with RFC 7628's error JSON as the
    /// challenge before the `NO [AUTHENTICATIONFAILED]`.
    func login(bearer: SASLBearer) async -> IMAPAuthenticationOutcome {
        outcome(
            await signIn.attempt(username: bearer.user, accessToken: bearer.token, client: client, logger: logger))
    }

    /// What the port's answer comes to for the session (nil: the store failed); the holder kept when signed in.
    private func outcome(_ outcome: MailDoorSignInOutcome?) -> IMAPAuthenticationOutcome {
        switch outcome {
        case .signedIn(let holder)?:
            self.holder = holder
            holder.standing?.checked(at: now())
            return .succeeded(user: holder.address)
        case .refused?:
            return .failed(.authenticationFailed)
        case .tokenRefused(let refusal)?:
            return .failed(.authenticationFailed, errorChallenge: BearerSASL.errorChallenge(refusal))
        case .throttled?, nil:
            return .failed(.unavailable)
        }
    }

    /// One step of `AUTHENTICATE`: `PLAIN` and `LOGIN` through ``PasswordSASL`` (the exchange POP3's `AUTH` shares),
    /// `OAUTHBEARER` (RFC 7628) and `XOAUTH2` with an access token through ``BearerSASL`` (POP3's `AUTH` shares both).
    func authenticate(_ step: SASLStep) async -> IMAPAuthenticationOutcome {
        switch BearerSASL.step(step) {
        case .challenge(let challenge)?: return .challenge(challenge)
        case .bearer(let bearer)?: return await login(bearer: bearer)
        case .malformed?:
            return .failed(.authenticationFailed, errorChallenge: BearerSASL.errorChallenge(.invalidToken))
        case .notBase64?: return .failed(.authenticationFailed)
        case nil: break
        }
        switch sasl.step(step) {
        case .challenge(let challenge): return .challenge(challenge)
        case .credentials(let username, let password): return await login(username: username, password: password)
        case .malformed: return .failed(.authenticationFailed)
        case .otherAuthorization: return .failed(.authorizationFailed)
        case .unsupported: return .failed(.cannot)
        }
    }

    // MARK: - Standing

    /// Why the session must end, when the holder's credential no longer holds
    /// (``MailSessionStanding/ended(at:writing:)``). The holder is then forgotten, so that nothing more is done for it.
    func ended(writing: Bool) async -> MailSessionEnd? {
        guard let end = await holder?.standing?.ended(at: now(), writing: writing) else { return nil }
        holder = nil
        view = nil
        fetching = nil
        return end
    }

    /// Whether `kind` writes to the mailbox (a flag, a message, an expunge): such a command checks the holder's
    /// standing every time, so that no session writes into an account it no longer holds.
    static func writes(_ kind: IMAPCommandKind) -> Bool {
        switch kind {
        case .append, .store, .expunge, .uidExpunge, .copy, .move, .close, .create, .delete, .rename: return true
        case .fetch(_, let attributes, _): return IMAPMessageRenderer.setsSeen(attributes)
        default: return false
        }
    }

    /// The connection is gone: a `SEARCH`, `SORT` or `THREAD` under way stops before its next message. Called from
    /// the connection's loop, without waiting for the actor (which the search holds).
    nonisolated func connectionClosed() {
        closed.store(true, ordering: .relaxed)
    }

    /// The selected mailbox looked at again: what the client must be told of changes since its last look (its
    /// EXPUNGEs held back when `holdingExpunges`, ``IMAPMailboxView/sync(to:holdingExpunges:)``).
    ///
    /// Every write to an address's mail moves its state in the writing transaction (the change log's triggers), so
    /// a look that begins at the state the last one began at would find what that one found: it is skipped, unless
    /// EXPUNGEs are held back to tell. The state is read before the look, so a change between the two costs one more
    /// look, never a missed one. A command on a large mailbox so costs one small read instead of reading every message's
    /// UID and flags (an mbsync's `UID FETCH n` per message, 10,000 of them, was bound by it).
    func refresh(holdingExpunges: Bool = false) async throws -> [IMAPUntaggedResponse] {
        guard let holder, let folder = view?.folder else { return [] }
        let looked = view?.lookedAtState
        let state = try await store.state(address: holder.address)
        if let view, view.folder == folder, !view.holdsExpunges, view.lookedAtState == state { return [] }
        let changes = try await changes(since: view, address: holder.address, state: state)
        // Another look of this session may have run while this one read (an IDLE's, its read under way when DONE
        // came): it told the client what it found, and this one, begun from the look before it, must not undo it.
        guard view?.folder == folder, view?.lookedAtState == looked else { return [] }
        if let changes, changes.changes.touched.isEmpty, changes.changes.mailbox == view?.mailbox {
            // Nothing of this mailbox changed (a folder made, mail to another): nothing to tell, nothing to read.
            view?.lookedAtState = state
            return []
        }
        let snapshot = try await snapshot(address: holder.address, folder: folder, state: state, applying: changes)
        guard view?.folder == folder, view?.lookedAtState == looked else { return [] }
        var responses = view?.sync(to: snapshot, holdingExpunges: holdingExpunges) ?? []
        view?.lookedAtState = state
        if view?.readOnly == false, let exists = responses.firstIndex(where: { if case .exists = $0 { true } else { false } }) {
            // New messages: this session is the first to be told of them, unless another selected them first.
            try await takeRecent(holder: holder)
            responses.insert(.recent(view?.recentCount ?? 0), at: exists + 1)
        }
        return responses
    }

    /// The most changes since the last look that a look reads from the change log
    /// (``MailStore/uidChanges(address:folder:since:to:atMost:)``) rather than the mailbox whole.
    static let changesReadAtMost = 1024

    /// What changed in `view`'s mailbox from its last look to `state`, with the messages it knew then: read from the
    /// change log, so that a change elsewhere (a folder made, mail to another folder) or to a few messages costs a
    /// read of the log and of those few, not of every message (issue 84: 1.3 s a look at 50,000 messages). Nil when
    /// the view holds expunges back, or the log cannot say (``MailStore/uidChanges(address:folder:since:to:atMost:)``):
    /// the mailbox is then read whole.
    private func changes(since view: IMAPMailboxView?, address: String, state: Int64) async throws
        -> (changes: MailUIDChanges, base: [MailUIDEntry])?
    {
        guard let view, !view.holdsExpunges, let since = view.lookedAtState else { return nil }
        let base = view.entries
        return try await store.uidChanges(
            address: address, folder: view.folder, since: since, to: state, atMost: Self.changesReadAtMost
        ).map { ($0, base) }
    }

    /// The UIDs and flags of `folder` at `state` (just read), through the listener's shared cache: a look at another
    /// state is `changes` applied to the messages known before them when given, else a read of the mailbox whole.
    func snapshot(
        address: String, folder: MailFolder, state: Int64,
        applying changes: (changes: MailUIDChanges, base: [MailUIDEntry])? = nil
    ) async throws -> IMAPSnapshotCache.Snapshot {
        let (store, now) = (store, now)
        return try await snapshots.snapshot(address: address, folder: folder, state: state) {
            if let changes { return (changes.changes.mailbox, changes.changes.applied(to: changes.base)) }
            return try await store.uidSnapshot(address: address, folder: folder, now: now())
        }
    }
}

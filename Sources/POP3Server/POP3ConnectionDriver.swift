import Logging
import MailDoorServer
import MailStore
import POP3
import SASL

/// One POP3 connection's side that needs the store: the sign-in (IMAP's port, so the same credentials, access
/// tokens, backoff and audit), the INBOX listed once at sign-in, a message's bytes, and the deletions `QUIT` commits.
/// An actor, so a connection's store work runs one request at a time, off the event loops.
///
/// The maildrop is not locked against the other doors (RFC 1939 §8 lets a server do without): JMAP, IMAP and the
/// Mail.td API go on reading and writing the same INBOX; a message another door deleted meanwhile answers `RETR`
/// with `-ERR [SYS/TEMP]`, and its `DELE` at `QUIT` removes nothing more.
actor POP3ConnectionDriver {
    let store: MailStore
    let signIn: any MailDoorSignIn
    /// The client's address (the PROXY header's when a balancer sent one).
    let client: String
    /// The wall clock, Unix seconds.
    let now: @Sendable () -> Int64
    let logger: Logger
    /// The mailbox the session acts for, once signed in.
    private var holder: MailboxHolder?
    /// The store's message id of each UIDL in the maildrop.
    private var ids: [String: String] = [:]
    /// The `AUTH PLAIN`/`LOGIN` exchange under way.
    private var sasl = PasswordSASL()

    init(
        store: MailStore, signIn: any MailDoorSignIn, client: String, now: @escaping @Sendable () -> Int64,
        logger: Logger
    ) {
        self.store = store
        self.signIn = signIn
        self.client = client
        self.now = now
        self.logger = logger
    }

    /// The unique id POP3's `UIDL` gives a message: its IMAP UID's stable form, `UIDVALIDITY.UID` in decimal (RFC
    /// 1939 §7: 1 to 70 characters 0x21–0x7E), the same in every session while the message lives.
    static func uidl(validity: UInt32, uid: UInt32) -> String {
        "\(validity).\(uid)"
    }

    /// `USER`/`PASS`: the credentials checked as IMAP's `LOGIN` checks them, then the INBOX listed in UID order.
    func login(username: String, password: String) async -> POP3AuthenticationOutcome {
        await outcome(signIn.attempt(username: username, password: password, client: client, logger: logger))
    }

    /// `AUTH OAUTHBEARER`/`XOAUTH2`: the access token checked as IMAP's `AUTHENTICATE` checks it (the same port, so
    /// the same scopes, backoff and audit), then the INBOX listed; a refused token gets RFC 7628's error JSON as a
    /// challenge before the `-ERR [AUTH]`.
    func login(bearer: SASLBearer) async -> POP3AuthenticationOutcome {
        await outcome(signIn.attempt(username: bearer.user, accessToken: bearer.token, client: client, logger: logger))
    }

    /// What the port's answer comes to for the session (nil: the store failed).
    private func outcome(_ outcome: MailDoorSignInOutcome?) async -> POP3AuthenticationOutcome {
        switch outcome {
        case .signedIn(let holder)?:
            return await open(holder)
        case .refused?:
            return .failed(.auth)
        case .tokenRefused(let refusal)?:  // the challenge is sent only after AUTH, never after PASS
            return .failed(.auth, errorChallenge: BearerSASL.errorChallenge(refusal))
        case .throttled?:
            return .failed(.loginDelay)
        case nil:
            return .failed(.systemTemporary)
        }
    }

    /// The signed-in holder's INBOX listed in UID order: the maildrop, numbered for the whole session.
    private func open(_ holder: MailboxHolder) async -> POP3AuthenticationOutcome {
        do {
            let (mailbox, entries) = try await store.uidSnapshot(address: holder.address, folder: .inbox, now: now())
            var maildrop: [POP3Message] = []
            maildrop.reserveCapacity(entries.count)
            for entry in entries {
                let uid = Self.uidl(validity: mailbox.uidValidity, uid: entry.uid)
                ids[uid] = entry.id
                maildrop.append(POP3Message(uid: uid, size: Int(entry.size)))
            }
            self.holder = holder
            holder.standing?.checked(at: now())
            return .succeeded(user: holder.address, maildrop: maildrop)
        } catch {
            logger.error("pop3 maildrop failed", metadata: ["error": .string(String(describing: type(of: error)))])
            return .failed(.systemTemporary)
        }
    }

    /// One step of `AUTH`: `PLAIN` and `LOGIN` through ``PasswordSASL``, `OAUTHBEARER` and `XOAUTH2` through
    /// ``BearerSASL`` (the exchanges IMAP's `AUTHENTICATE` shares).
    func authenticate(_ step: SASLStep) async -> POP3AuthenticationOutcome {
        switch BearerSASL.step(step) {
        case .challenge(let challenge)?: return .challenge(challenge)
        case .bearer(let bearer)?: return await login(bearer: bearer)
        case .malformed?: return .failed(.auth, errorChallenge: BearerSASL.errorChallenge(.invalidToken))
        case .notBase64?: return .failed(.auth)
        case nil: break
        }
        switch sasl.step(step) {
        case .challenge(let challenge): return .challenge(challenge)
        case .credentials(let username, let password): return await login(username: username, password: password)
        case .malformed, .otherAuthorization, .unsupported: return .failed(.auth)
        }
    }

    /// Why the session must end, when the holder's credential no longer holds
    /// (``MailSessionStanding/ended(at:writing:)``): `QUIT`'s deletions write, `RETR` and `TOP` read. The holder is
    /// then forgotten.
    func ended(writing: Bool) async -> MailSessionEnd? {
        guard let end = await holder?.standing?.ended(at: now(), writing: writing) else { return nil }
        holder = nil
        return end
    }

    /// `RETR`/`TOP`: the message's bytes as stored; nil when it is gone (deleted through another door) or the store
    /// failed.
    func retrieve(_ message: POP3Message) async -> [UInt8]? {
        guard let holder, let id = ids[message.uid] else { return nil }
        do {
            return try await store.raw(address: holder.address, id: id)
        } catch {
            logger.error("pop3 retrieve failed", metadata: ["error": .string(String(describing: type(of: error)))])
            return nil
        }
    }

    /// `QUIT`: the messages marked deleted removed for every door in one transaction (JMAP reports them destroyed,
    /// the Mail.td list loses them, their bytes leave the quota). True when the store did it (a message already gone
    /// counts as removed); false when it failed, and then nothing was removed.
    func commitDeletions(_ messages: [POP3Message]) async -> Bool {
        guard let holder else { return false }
        do {
            _ = try await store.delete(address: holder.address, ids: messages.compactMap { ids[$0.uid] })
            return true
        } catch {
            logger.error("pop3 deletion failed", metadata: ["error": .string(String(describing: type(of: error)))])
            return false
        }
    }
}

import AuthCrypto
import JWT

/// Who a request speaks for, after its bearer was checked against the database.
package enum MailboxPrincipal: Sendable {
    /// A mailbox token of this (live) account.
    case account(MailboxAccountRecord)
    /// A Pro JWT or API token of this Pro user.
    case proUser(ProUserRecord)
}

/// What a bearer is, as far as it was checked before the rate limit: JWTs by signature and expiry only
/// (cheap, no database), Pro API tokens by an indexed lookup of their digest (`MailboxService.admit`).
package enum MailboxBearer: Sendable {
    /// No bearer, an empty one, or one not shaped like any token (an SDK's placeholder such as `null`): Mail.td's
    /// SDKs send `Authorization: Bearer <token>` even when they hold none.
    case anonymous
    /// A correctly signed, unexpired mailbox JWT.
    case mailbox(subject: String, version: Int64)
    /// A correctly signed, unexpired Pro JWT.
    case pro(subject: String, version: Int64)
    /// Something shaped like a Pro API token, not looked up yet: it earns nothing until it is, because
    /// anyone can write `tm_pro_` in front of anything.
    case apiToken(String)
    /// A Pro API token found live in the database, of an active Pro user.
    case verifiedAPIToken(ProTokenRecord, ProUserRecord)
    /// Anything else: answered 401 where a token is needed.
    case invalid

    /// Whether the bearer earns the Pro rate-limit classes: a signed Pro JWT or a verified API token,
    /// never an API token that was not looked up.
    package var earnsPro: Bool {
        switch self {
        case .pro, .verifiedAPIToken: true
        default: false
        }
    }
}

/// The one place that turns a bearer into a principal and decides which accounts it reaches.
///
/// Every check reads the database: an account's token epoch, a Pro user's epoch, an API token's
/// revocation. Nothing is cached, so a reset, a deletion or a revocation takes effect at once.
package struct MailboxAuthorizer: Sendable {
    let tokens: MailboxTokens
    let store: MailboxStore
    let clock: @Sendable () -> Int64

    /// Classifies the bearer of a request (no database access; a Pro API token stays unverified).
    package func classify(_ bearer: String?) -> MailboxBearer {
        guard let bearer, !bearer.isEmpty else { return .anonymous }
        if bearer.hasPrefix(MailboxTokens.apiTokenPrefix) { return .apiToken(bearer) }
        guard Self.isCompactJWS(bearer) else { return .anonymous }
        let now = clock()
        for purpose in [JWTPurpose.mailbox, .pro] {
            guard let claims = tokens.verify(bearer, purpose: purpose, now: now), let subject = claims.sub,
                case .int(let version)? = claims["ver"]
            else { continue }
            return purpose == .mailbox
                ? .mailbox(subject: subject, version: version) : .pro(subject: subject, version: version)
        }
        return .invalid
    }

    /// Whether `text` has a JWS's compact shape: three non-empty base64url segments. Such a bearer is a token
    /// (valid or not); anything else is no token at all.
    static func isCompactJWS(_ text: String) -> Bool {
        var segments = 1, segmentLength = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                guard segmentLength > 0 else { return false }
                segments += 1
                segmentLength = 0
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                segmentLength += 1
            default:
                return false
            }
        }
        return segments == 3 && segmentLength > 0
    }

    /// The principal behind a bearer; nil for anonymous; `.invalidOrExpiredToken` when the token is bad,
    /// superseded (epoch moved on), revoked, or its account or user is gone.
    func principal(_ bearer: MailboxBearer) async throws -> MailboxPrincipal? {
        switch bearer {
        case .anonymous:
            return nil
        case .invalid:
            throw MailboxError.invalidOrExpiredToken
        case .mailbox(let subject, let version):
            guard MailboxIdentifiers.isUUID(subject) else { throw MailboxError.invalidOrExpiredToken }
            return .account(try Self.live(await store.account(id: subject), version: version))
        case .pro(let subject, let version):
            guard MailboxIdentifiers.isUUID(subject), let user = try await store.proUser(id: subject),
                user.tokenEpoch == version, user.status == "active"
            else { throw MailboxError.invalidOrExpiredToken }
            return .proUser(user)
        case .apiToken(let token):
            guard let (record, user) = try await verify(apiToken: token) else {
                throw MailboxError.invalidOrExpiredToken
            }
            return try await use(record, user)
        case .verifiedAPIToken(let record, let user):
            return try await use(record, user)
        }
    }

    /// The live record of an API token and its active Pro user; nil when the token is unknown, revoked,
    /// or its user is gone or not active. Reads by digest (indexed), no write.
    package func verify(apiToken token: String) async throws -> (ProTokenRecord, ProUserRecord)? {
        let digest = MailboxTokens.digest(apiToken: token)
        guard let record = try await store.liveProToken(digest: digest), constantTimeEquals(record.digest, digest),
            let user = try await store.proUser(id: record.userID), user.status == "active"
        else { return nil }
        return (record, user)
    }

    /// Records the use of a verified API token (at most one write per token and second).
    private func use(_ record: ProTokenRecord, _ user: ProUserRecord) async throws -> MailboxPrincipal {
        let now = clock()
        if record.lastUsedAt != now { try await store.touchProToken(id: record.id, now: now) }
        return .proUser(user)
    }

    /// A principal that must exist (an anonymous request gets `.invalidOrExpiredToken`).
    package func requirePrincipal(_ bearer: MailboxBearer) async throws -> MailboxPrincipal {
        guard let principal = try await principal(bearer) else { throw MailboxError.invalidOrExpiredToken }
        return principal
    }

    /// The Pro user behind a bearer; anything else (anonymous, mailbox token) is `.invalidOrExpiredToken`.
    package func requireProUser(_ bearer: MailboxBearer) async throws -> ProUserRecord {
        guard case .proUser(let user)? = try await principal(bearer) else { throw MailboxError.invalidOrExpiredToken }
        return user
    }

    /// The account `id` (its UUID or, as Mail.td's SDK allows, its address) if `principal` may reach it: a mailbox token only its own account (else
    /// `.forbidden`), a Pro user only accounts it owns (else `.notFound`).
    package func account(_ id: String, for principal: MailboxPrincipal) async throws -> MailboxAccountRecord {
        let address = MailboxAddress(id)?.description
        switch principal {
        case .account(let account):
            return try Self.own(account, id)
        case .proUser(let user):
            var found: MailboxAccountRecord?
            if MailboxIdentifiers.isUUID(id) {
                found = try await store.account(id: id)
            } else if let address {
                found = try await store.account(address: address)
            }
            guard let account = found, account.ownerID == user.id else { throw MailboxError.notFound }
            return account
        }
    }

    /// The account a mailbox token of `subject` at `version` reaches by `id` (its own, by UUID or address), read from the
    /// calling event loop (``MailboxStore/account(id:onLoop:)``): what ``requirePrincipal(_:)`` and
    /// ``account(_:for:)`` decide for such a token, from the same one read; `completion` runs on the loop, with
    /// `.invalidOrExpiredToken`, `.forbidden` or the storage's error. False, and no `completion`, when the read cannot
    /// go that way (the caller goes the awaited way).
    package func account(
        _ id: String, mailboxSubject subject: String, version: Int64,
        onLoop completion: @escaping (Result<MailboxAccountRecord, any Error>) -> Void
    ) -> Bool {
        guard MailboxIdentifiers.isUUID(subject) else { return false }
        return store.account(id: subject) { read in
            completion(read.flatMap { found in Result { try Self.own(Self.live(found, version: version), id) } })
        }
    }

    /// The account a mailbox token names when it is there and the token's epoch is its own.
    private static func live(_ found: MailboxAccountRecord?, version: Int64) throws -> MailboxAccountRecord {
        guard let account = found, account.tokenEpoch == version else { throw MailboxError.invalidOrExpiredToken }
        return account
    }

    /// `account` when `id` names it (its UUID or its address), else `.forbidden`.
    private static func own(_ account: MailboxAccountRecord, _ id: String) throws -> MailboxAccountRecord {
        guard account.id == id || account.address == MailboxAddress(id)?.description else { throw MailboxError.forbidden }
        return account
    }
}

import AuthCrypto

/// A challenge as `GET /api/challenge` hands it out.
public struct MailboxChallenge: Sendable, Equatable {
    /// 32 lowercase hex characters.
    public let id: String
    /// 64 lowercase hex characters; the proof hashes its UTF-8 text.
    public let salt: String
    /// Leading zero bits needed.
    public let difficulty: Int
    /// Unix seconds after which the challenge is refused.
    public let expiresAt: Int64
}

/// Stateless challenges: nothing is stored when one is issued.
///
/// The id's 16 bytes are 8 random bytes, the expiry (4 bytes, big-endian Unix seconds) and a 4-byte
/// tag, HMAC-SHA-256 of the first 12 bytes under the server secret; the salt is the hex HMAC of the
/// whole id under the same secret (with another label). A forged or altered id fails the tag; its
/// salt cannot be known without asking the server. Single use is the shared `ChallengeLedger`'s job,
/// at consumption.
package struct MailboxChallenges: Sendable {
    let secret: [UInt8]
    let difficulty: Int
    let ttl: Int64

    package init(secret: [UInt8], difficulty: Int, ttl: Int64) {
        (self.secret, self.difficulty, self.ttl) = (secret, difficulty, ttl)
    }

    package func issue(now: Int64) -> MailboxChallenge {
        let expiresAt = now + ttl
        let expiry = UInt32(clamping: expiresAt)
        var body = SecureRandom.bytes(8)
        body += [UInt8(expiry >> 24), UInt8(expiry >> 16 & 0xFF), UInt8(expiry >> 8 & 0xFF), UInt8(expiry & 0xFF)]
        let id = body + tag(body)
        return MailboxChallenge(id: Hex.encode(id), salt: salt(id), difficulty: difficulty, expiresAt: Int64(expiry))
    }

    /// The salt and expiry of a genuine, unexpired challenge id, else `.challengeNotFound`.
    package func open(id text: String, now: Int64) throws(MailboxError) -> (salt: String, expiresAt: Int64) {
        guard text.utf8.count == 32, let id = Hex.decode(text.lowercased()), id.count == 16 else {
            throw .challengeNotFound
        }
        let body = Array(id.prefix(12))
        guard constantTimeEquals(Array(id.suffix(4)), tag(body)) else { throw .challengeNotFound }
        let expiresAt = Int64(body[8]) << 24 | Int64(body[9]) << 16 | Int64(body[10]) << 8 | Int64(body[11])
        guard now <= expiresAt else { throw .challengeNotFound }
        return (salt(id), expiresAt)
    }

    private func tag(_ body: [UInt8]) -> [UInt8] {
        Array(HMACSHA256.authenticationCode(key: secret, message: Array("mailbox-challenge-id:".utf8) + body).prefix(4))
    }

    private func salt(_ id: [UInt8]) -> String {
        Hex.encode(HMACSHA256.authenticationCode(key: secret, message: Array("mailbox-challenge-salt:".utf8) + id))
    }
}

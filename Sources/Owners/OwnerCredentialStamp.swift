import AuthCrypto
import Storage

/// What an owner's half-done sign-in rests on (issue 88): a digest of their ways in as they stand, read at once
/// (``OwnerStore/secondStepStanding(ownerID:factors:)``) when the first factor passes and again at every request of
/// the second step, which goes on only while the two are the same. Owners have no token epoch: their password hash (a
/// new one, with a new random salt, for every password set, `postern owner set-password` included, which also ends
/// their sessions; emptied when they remove it, with `password_removed_at`) and their confirmed second factor (its
/// secret as stored and when it was confirmed: turning it on, which ends their other sessions, or off, by the owner or
/// by `postern owner mfa reset`) are what moves when their credentials do. A factor set up and waiting for its first
/// code asks for nothing at sign-in and is left out, so the setup at the second step does not end its own sign-in;
/// its confirmation, by any browser, does end every other.
///
/// Derived from the rows every release writes, it needs no column of its own and holds for changes made by an
/// instance of the previous release during a rolling upgrade. It rides the second step's cookie, which is sealed
/// (AES-GCM), and is a SHA-256: it tells nothing of the hash or the secret.
struct OwnerCredentialStamp: Equatable, Sendable {
    /// The digest, Base64URL without padding (43 characters, no newline: a cookie field).
    let encoded: String

    /// The stamp of an owner's row (its `password_hash` and `password_removed_at`) and of their confirmed second
    /// factor (``SecondFactors/SecondFactorStore/confirmedFactorStamp(holder:_:)``; nil with none on).
    init(_ row: SQLRow, factor: [UInt8]?) {
        var text = "owner second step v1\n"
        text += (row.text("password_hash") ?? "") + "\n"
        text += row.int("password_removed_at").map(String.init) ?? "-"
        text += "\n" + (factor.map(Base64URL.encode) ?? "off")
        encoded = Base64URL.encode(SHA256.hash(Array(text.utf8)))
    }

    /// The stamp a cookie field carries.
    init(encoded: String) {
        self.encoded = encoded
    }

    /// Compared in constant time, as every digest is here.
    static func == (lhs: Self, rhs: Self) -> Bool {
        constantTimeEquals(Array(lhs.encoded.utf8), Array(rhs.encoded.utf8))
    }
}

import AuthCrypto
import PasswordHashing

/// Turns a credential into the verifier an account stores and checks a presented one, on the worker pool.
package struct MailboxCredentials: Sendable {
    /// Checks the Argon2id password hashes stored before `auth_key` (and runs on the same pool).
    let legacy: PasswordHasher
    /// Cost of deriving `auth_key` from a password (Mail.td's unless a test lowers it).
    let parameters: Argon2Parameters

    /// What a sign-in check found.
    enum Outcome: Equatable {
        case refused
        case accepted
        /// Accepted against a pre-`auth_key` password hash: store this verifier in its place.
        case acceptedUpgrading([UInt8])
    }

    /// The verifier of `credential` for the account at `address` (normalised): a password costs one
    /// `auth_key` derivation, an `auth_key` one SHA-256.
    package func verifier(for credential: MailboxCredential, address: String) async throws -> [UInt8] {
        switch credential {
        case .authKey(let key):
            return MailboxAuthKey.verifier(key)
        case .password(let password):
            let parameters = parameters
            return try await legacy.pool.run(.passwordHash) {
                MailboxAuthKey.verifier(try MailboxAuthKey.derive(address: address, password: password, parameters: parameters))
            }
        }
    }

    /// Checks `credential` for `address` against `account` (nil when the address is unknown, which costs the
    /// same as a wrong password: the derivation depends only on what was presented).
    ///
    /// An account stored before `auth_key` has only an Argon2id hash of its password: a v1 password is checked
    /// against it and, when right, upgraded; an `auth_key` cannot be checked against it and is refused until
    /// the account signs in once with its password (or is reset).
    func check(_ credential: MailboxCredential, address: String, against account: MailboxAccountRecord?) async throws
        -> Outcome
    {
        if let account, account.authVerifier == nil {
            guard case .password(let password) = credential,
                try await legacy.verify(password, against: account.passwordHash)
            else { return .refused }
            return .acceptedUpgrading(try await verifier(for: credential, address: account.address))
        }
        let presented = try await verifier(for: credential, address: address)
        guard let stored = account?.authVerifier, constantTimeEquals(presented, stored) else { return .refused }
        return .accepted
    }
}

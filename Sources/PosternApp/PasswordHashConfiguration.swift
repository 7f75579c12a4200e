import MailboxAccounts
import Owners
import PasswordHashing
import ServerKit

/// The Argon2id cost of the passwords Postern stores (owners, mailbox accounts, Pro users): every surface that hashes a
/// password takes it from here (``applied(to:)``; the owner commands read ``argon2``). A stored hash keeps the costs it
/// was made with (they are in its encoded form), so a change applies to passwords set after it and every older one
/// still signs in. Until those are set again, a sign-in for an account with an older hash takes that hash's time,
/// while one for an unknown email takes the decoy's at the new cost: a large change lets the timing tell the two apart.
///
/// Mail.td's `auth_key` is not among them: its costs are the v2 SDK's (the client derives the same key).
///
/// ## Configuration keys
/// - `POSTERN_PASSWORD_ARGON2_MEMORY_KIB` (integer, 8 to 1,048,576, default 19,456): ``argon2``'s memory.
/// - `POSTERN_PASSWORD_ARGON2_ITERATIONS` (integer, 1 to 10, default 2): ``argon2``'s passes.
public struct PasswordHashConfiguration: Sendable {
    /// The costs of a newly stored password. Default OWASP's and CONTRACT 2's m=19,456 KiB, t=2, p=1.
    public var argon2 = Argon2Parameters()

    /// The cost `--profile test` sets: the cheapest useful one (64 KiB, one pass), for servers whose passwords guard
    /// nothing.
    public static let testProfile = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

    /// Every default.
    public init() {}

    /// The defaults overridden by the keys listed above, read from `config`.
    /// - Throws: ``ConfigurationError`` naming the key of a value that does not parse or is out of range.
    public init(config: ConfigurationReader) throws {
        let config = config.scoped(to: "POSTERN_PASSWORD_ARGON2")
        if let memory = try config.integer("MEMORY_KIB") {
            guard (8...1_048_576).contains(memory) else { throw config.error("MEMORY_KIB", "must be from 8 to 1048576") }
            argon2.memoryKiB = UInt32(memory)
        }
        if let passes = try config.integer("ITERATIONS") {
            guard (1...10).contains(passes) else { throw config.error("ITERATIONS", "must be from 1 to 10") }
            argon2.iterations = UInt32(passes)
        }
    }

    /// `surface` with these costs: how every surface that stores passwords is given them.
    func applied<Surface: StoresPasswords>(to surface: Surface) -> Surface {
        var surface = surface
        surface.argon2 = argon2
        return surface
    }
}

/// A surface's configuration that hashes the passwords it stores with the server's one Argon2 cost
/// (``PasswordHashConfiguration/applied(to:)``).
protocol StoresPasswords {
    /// The Argon2id costs of a newly stored password.
    var argon2: Argon2Parameters { get set }
}

extension MailboxConfiguration: StoresPasswords {}
extension OwnersConfiguration: StoresPasswords {}

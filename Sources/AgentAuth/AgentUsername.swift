/// Username rules of agent signup (CONTRACT.md 1.3 step 6).
public enum AgentUsername {
    /// Names nobody may register: they are role addresses of the inbox domain.
    public static let reserved: Set<String> = [
        "admin", "postmaster", "abuse", "root", "hostmaster", "webmaster", "noreply", "support",
    ]
    /// Shortest valid username on the shared agent domain: short names there are few, and a squatter could hold them.
    public static let minimumLength = 5
    /// Shortest valid local part of an inbox on an owner's own, proven domain (`bot@`): nobody else can take a name
    /// there, so there is nothing to squat.
    public static let minimumLengthOnOwnDomain = 1
    /// Longest valid username.
    public static let maximumLength = 21

    /// Why a username is refused.
    public enum Refusal: Sendable, Equatable {
        /// Does not match `^[a-z0-9][a-z0-9._-]{3,19}[a-z0-9]$`.
        case invalid
        /// One of ``AgentUsername/reserved``.
        case reserved
    }

    /// Checks `name` against `^[a-z0-9][a-z0-9._-]{3,19}[a-z0-9]$` (with `minimumLength` characters at least) and the
    /// reserved names.
    /// - Parameter minimumLength: ``minimumLength`` on the agent domain, ``minimumLengthOnOwnDomain`` on an owner's.
    /// - Returns: `nil` when the name may be registered, otherwise why not.
    public static func check(_ name: String, minimumLength: Int = minimumLength) -> Refusal? {
        let bytes = Array(name.utf8)
        guard bytes.count >= minimumLength, bytes.count <= maximumLength else { return .invalid }
        for (index, byte) in bytes.enumerated() {
            let edge = index == 0 || index == bytes.count - 1
            guard isLowerAlphanumeric(byte) || (!edge && (byte == 0x2E || byte == 0x5F || byte == 0x2D)) else {
                return .invalid
            }
        }
        return reserved.contains(name) ? .reserved : nil
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
    }
}

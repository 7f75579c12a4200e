import AuthCrypto
import Directory

/// Identifiers minted by the surface.
public enum MailboxIdentifiers {
    /// A random (version 4) UUID, lower-case, from `RAND_bytes`.
    public static func uuid() -> String {
        format(uuidBytes: SecureRandom.bytes(16), version: 4)
    }

    /// A stable UUID-shaped id for a configured domain (version 8, from SHA-256 of its name), so that
    /// `GET /api/domains` gives the same ids across restarts.
    package static func domainID(_ domain: String) -> String {
        format(uuidBytes: Array(SHA256.hash(Array("postern-mailbox-domain:\(domain)".utf8)).prefix(16)), version: 8)
    }

    /// Whether `text` looks like a UUID (36 characters, hex and dashes); cheap guard before lookups.
    public static func isUUID(_ text: String) -> Bool {
        AccountID.isUUID(text)
    }

    private static func format(uuidBytes: [UInt8], version: UInt8) -> String {
        var bytes = uuidBytes
        bytes[6] = (bytes[6] & 0x0F) | (version << 4)
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Hex.encode(bytes)
        let characters = Array(hex)
        return String(characters[0..<8]) + "-" + String(characters[8..<12]) + "-" + String(characters[12..<16]) + "-"
            + String(characters[16..<20]) + "-" + String(characters[20..<32])
    }
}

import Base64Coding
/// The Argon2 flavours (RFC 9106 section 3.1 `y`).
public enum Argon2Variant: String, Sendable, Hashable, CaseIterable {
    /// Argon2d: data-dependent memory access.
    case d = "argon2d"
    /// Argon2i: data-independent memory access.
    case i = "argon2i"
    /// Argon2id: the hybrid RFC 9106 recommends.
    case id = "argon2id"
}

/// The parameters, salt and tag of an Argon2 hash in PHC string form:
/// `$argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>` (salt and hash in unpadded standard base64).
///
/// Parsing is pure and strict: no hashing happens, so callers can refuse costly parameters before
/// spending any time or memory on them.
public struct Argon2Hash: Sendable, Hashable {
    /// The longest encoded string accepted.
    public static let maximumEncodedLength = 1024
    /// Accepted salt lengths in bytes (libargon2's minimum is 8).
    public static let saltLengths = 8...256
    /// Accepted tag lengths in bytes (libargon2's minimum is 4).
    public static let hashLengths = 4...256

    /// Which Argon2 flavour.
    public var variant: Argon2Variant
    /// Algorithm version: 16 (0x10) or 19 (0x13). A string without `v=` means 16.
    public var version: Int
    /// Memory cost in KiB (`m`), at least 8 per lane.
    public var memoryKiB: UInt32
    /// Number of passes (`t`), at least 1.
    public var iterations: UInt32
    /// Number of lanes (`p`), 1 through 2^24 - 1.
    public var parallelism: UInt32
    /// The salt bytes.
    public var salt: [UInt8]
    /// The tag (hash output) bytes.
    public var hash: [UInt8]

    /// Creates a value from its parts; `encoded` then gives the PHC string.
    public init(
        variant: Argon2Variant, version: Int = 19, memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32,
        salt: [UInt8], hash: [UInt8]
    ) {
        self.variant = variant
        self.version = version
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
        self.salt = salt
        self.hash = hash
    }

    /// The PHC string, always with `v=`.
    public var encoded: String {
        "$\(variant.rawValue)$v=\(version)$m=\(memoryKiB),t=\(iterations),p=\(parallelism)$"
            + "\(Base64.encodeUnpadded(salt))$\(Base64.encodeUnpadded(hash))"
    }

    /// Parses a PHC string without hashing anything.
    ///
    /// Accepts `argon2i`, `argon2d`, `argon2id`; versions 16 and 19 (`v=` may be absent, meaning 16);
    /// parameters exactly in the order `m,t,p` as decimal numbers without sign or leading zeros;
    /// salt and hash in canonical unpadded standard base64 within `saltLengths` and `hashLengths`.
    /// - Throws: `CryptoError` `.invalidEncodedHash` for anything else (the message does not echo the input).
    public static func parse(_ encoded: String) throws(CryptoError) -> Argon2Hash {
        guard encoded.utf8.count <= maximumEncodedLength else { throw invalid("too long") }
        let fields = encoded.utf8.split(separator: UInt8(ascii: "$"), omittingEmptySubsequences: false)
        guard fields.count == 5 || fields.count == 6, fields[0].isEmpty else { throw invalid("wrong number of fields") }
        guard let variant = Argon2Variant(rawValue: String(decoding: fields[1], as: UTF8.self)) else {
            throw invalid("unknown variant")
        }
        var index = 2
        var version = 16
        if fields.count == 6 {
            guard let value = try number(fields[2], prefix: "v="), value == 16 || value == 19 else {
                throw invalid("unsupported version")
            }
            version = Int(value)
            index = 3
        }
        let parameters = fields[index].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard parameters.count == 3,
            let memory = try number(parameters[0], prefix: "m="),
            let iterations = try number(parameters[1], prefix: "t="),
            let parallelism = try number(parameters[2], prefix: "p=")
        else { throw invalid("parameters must be m=,t=,p=") }
        guard iterations >= 1 else { throw invalid("t must be at least 1") }
        guard parallelism >= 1, parallelism <= 0xFF_FFFF else { throw invalid("p out of range") }
        guard UInt64(memory) >= 8 * UInt64(parallelism) else { throw invalid("m must be at least 8 per lane") }
        guard let salt = Base64.decodeUnpadded(String(decoding: fields[index + 1], as: UTF8.self)),
            saltLengths.contains(salt.count)
        else { throw invalid("bad salt") }
        guard let hash = Base64.decodeUnpadded(String(decoding: fields[index + 2], as: UTF8.self)),
            hashLengths.contains(hash.count)
        else { throw invalid("bad hash") }
        return Argon2Hash(
            variant: variant, version: version, memoryKiB: memory, iterations: iterations,
            parallelism: parallelism, salt: salt, hash: hash)
    }

    /// `prefix` followed by a canonical decimal UInt32; nil when the prefix is absent.
    private static func number(_ field: Substring.UTF8View.SubSequence, prefix: String) throws(CryptoError) -> UInt32? {
        let prefixBytes = Array(prefix.utf8)
        guard field.starts(with: prefixBytes) else { return nil }
        let digits = field.dropFirst(prefixBytes.count)
        guard !digits.isEmpty, digits.count <= 10,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            digits.count == 1 || digits.first != UInt8(ascii: "0")
        else { throw invalid("bad number") }
        var value: UInt64 = 0
        for digit in digits { value = value * 10 + UInt64(digit - UInt8(ascii: "0")) }
        guard value <= UInt64(UInt32.max) else { throw invalid("number too large") }
        return UInt32(value)
    }

    private static func invalid(_ reason: String) -> CryptoError {
        CryptoError(.invalidEncodedHash, "Argon2 hash: \(reason)")
    }
}

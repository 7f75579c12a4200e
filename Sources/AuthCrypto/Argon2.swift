import CArgon2

/// Argon2 (RFC 9106) hashing and verification through libargon2.
///
/// Every call runs single-threaded on the calling thread (lanes are computed one after another),
/// so a bounded worker pool bounds the CPU it uses. Memory use is `memoryKiB` KiB per call:
/// check parsed parameters against your limits before calling.
public enum Argon2 {
    /// Hashes `password` and returns the PHC string (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`).
    /// - Parameters:
    ///   - salt: at least 8 bytes; use `SecureRandom.bytes(16)`.
    ///   - length: tag length in bytes, 4 through 256.
    /// - Throws: `CryptoError` `.invalidParameters` or `.argon2Failed`.
    public static func hash(
        password: [UInt8], salt: [UInt8], variant: Argon2Variant = .id, memoryKiB: UInt32, iterations: UInt32,
        parallelism: UInt32, length: Int = 32
    ) throws(CryptoError) -> String {
        guard Argon2Hash.saltLengths.contains(salt.count), Argon2Hash.hashLengths.contains(length) else {
            throw CryptoError(.invalidParameters, "Argon2: salt or output length out of range")
        }
        let tag = try rawHash(
            password: password, salt: salt, variant: variant, version: 19, memoryKiB: memoryKiB,
            iterations: iterations, parallelism: parallelism, length: length)
        return Argon2Hash(
            variant: variant, version: 19, memoryKiB: memoryKiB, iterations: iterations, parallelism: parallelism,
            salt: salt, hash: tag
        ).encoded
    }

    /// Checks `password` against a PHC string, comparing tags in constant time.
    ///
    /// - Warning: the string's costs are used as given. For hashes from untrusted sources parse with
    ///   `Argon2Hash.parse`, check the costs, then call `verify(_:password:)`.
    /// - Throws: `CryptoError` `.invalidEncodedHash` for a malformed string, `.argon2Failed` when hashing fails.
    public static func verify(encoded: String, password: [UInt8]) throws(CryptoError) -> Bool {
        try verify(Argon2Hash.parse(encoded), password: password)
    }

    /// Checks `password` against parsed Argon2 parameters and tag, in constant time.
    /// - Throws: `CryptoError` `.argon2Failed` when hashing fails (for example memory allocation).
    public static func verify(_ expected: Argon2Hash, password: [UInt8]) throws(CryptoError) -> Bool {
        let tag = try rawHash(
            password: password, salt: expected.salt, variant: expected.variant, version: expected.version,
            memoryKiB: expected.memoryKiB, iterations: expected.iterations, parallelism: expected.parallelism,
            length: expected.hash.count)
        return constantTimeEquals(tag, expected.hash)
    }

    /// The raw Argon2 tag, with the optional secret key `K` and associated data `X` of RFC 9106.
    /// - Parameters:
    ///   - version: 16 or 19.
    ///   - length: tag length, at least 4 bytes.
    /// - Throws: `CryptoError` `.invalidParameters` or `.argon2Failed` (with libargon2's message).
    public static func rawHash(
        password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associatedData: [UInt8] = [],
        variant: Argon2Variant, version: Int = 19, memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32,
        length: Int
    ) throws(CryptoError) -> [UInt8] {
        guard version == 16 || version == 19, length >= 4, length <= Int(UInt32.max),
            password.count <= Int(UInt32.max), salt.count <= Int(UInt32.max),
            secret.count <= Int(UInt32.max), associatedData.count <= Int(UInt32.max)
        else { throw CryptoError(.invalidParameters, "Argon2: version or lengths out of range") }
        let type: argon2_type
        switch variant {
        case .d: type = Argon2_d
        case .i: type = Argon2_i
        case .id: type = Argon2_id
        }
        // libargon2 takes mutable pointers (it can wipe inputs); work on copies.
        var password = password, salt = salt, secret = secret, associatedData = associatedData
        var status: Int32 = ARGON2_OK.rawValue
        let tag = [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
            status = password.withUnsafeMutableBufferPointer { password in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associatedData.withUnsafeMutableBufferPointer { associatedData in
                            var context = argon2_context(
                                out: output.baseAddress, outlen: UInt32(length),
                                pwd: password.baseAddress, pwdlen: UInt32(password.count),
                                salt: salt.baseAddress, saltlen: UInt32(salt.count),
                                secret: secret.baseAddress, secretlen: UInt32(secret.count),
                                ad: associatedData.baseAddress, adlen: UInt32(associatedData.count),
                                t_cost: iterations, m_cost: memoryKiB, lanes: parallelism, threads: 1,
                                version: UInt32(version), allocate_cbk: nil, free_cbk: nil,
                                flags: 0)
                            return argon2_ctx(&context, type)
                        }
                    }
                }
            }
            initialized = status == ARGON2_OK.rawValue ? length : 0
        }
        guard status == ARGON2_OK.rawValue else {
            let message = argon2_error_message(status).map { String(cString: $0) } ?? "unknown error"
            throw CryptoError(.argon2Failed, "Argon2: \(message)")
        }
        return tag
    }
}

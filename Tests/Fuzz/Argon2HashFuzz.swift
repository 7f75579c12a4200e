// libFuzzer entry for the Argon2 PHC string parser (Argon2Hash.parse), with libargon2 as the oracle.
// Built by scripts/fuzz together with Sources/AuthCrypto/*.swift into one module; not part of the
// SwiftPM package.
//
// Properties checked on every input (a violation traps, which libFuzzer reports as a crash):
// 1. Parsing never crashes, whatever the bytes.
// 2. Whatever it accepts is within the documented ceilings: at most 1024 bytes; argon2i/d/id;
//    version 16 or 19; t >= 1; 1 <= p <= 2^24 - 1; m >= 8 per lane; salt 8...256 and tag 4...256 bytes.
// 3. Parse -> encode -> parse gives the same value, and the accepted text is already that encoding
//    (only canonical strings are accepted; a missing v= means 16).
// 4. For accepted strings with small costs (m <= 64 KiB, t <= 2, p <= 2), libargon2's own decoder and
//    verifier (argon2_verify) agree with Argon2.verify on a password taken from the input, both on
//    the string as given (normally a mismatch) and on it with the right tag (a match).

import CArgon2

#if canImport(Glibc)
    import Glibc
#endif

/// Like `precondition`, but prints the message in optimized builds too, then traps for libFuzzer.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

private func libargon2Verify(_ encoded: String, password: [UInt8], variant: Argon2Variant) -> Int32 {
    let type: argon2_type
    switch variant {
    case .d: type = Argon2_d
    case .i: type = Argon2_i
    case .id: type = Argon2_id
    }
    return password.withUnsafeBufferPointer { password in
        argon2_verify(encoded, password.baseAddress, password.count, type)
    }
}

private func swiftVerify(_ hash: Argon2Hash, password: [UInt8]) -> Bool {
    do {
        return try Argon2.verify(hash, password: password)
    } catch {
        require(false, "Argon2.verify failed on parameters the parser accepted: \(error)")
        return false
    }
}

private func checkAgainstLibargon2(_ text: String, _ hash: Argon2Hash, password: [UInt8]) {
    guard hash.memoryKiB <= 64, hash.iterations <= 2, hash.parallelism <= 2 else { return }
    let given = libargon2Verify(text, password: password, variant: hash.variant)
    require(
        given == ARGON2_OK.rawValue || given == ARGON2_VERIFY_MISMATCH.rawValue,
        "libargon2 cannot decode a string the parser accepted (\(given)): \(text)")
    require(swiftVerify(hash, password: password) == (given == ARGON2_OK.rawValue), "verify disagrees with libargon2: \(text)")

    var matching = hash
    do {
        matching.hash = try Argon2.rawHash(
            password: password, salt: hash.salt, variant: hash.variant, version: hash.version,
            memoryKiB: hash.memoryKiB, iterations: hash.iterations, parallelism: hash.parallelism,
            length: hash.hash.count)
    } catch {
        require(false, "Argon2.rawHash failed on parameters the parser accepted: \(error)")
    }
    let encoded = matching.encoded
    require(libargon2Verify(encoded, password: password, variant: hash.variant) == ARGON2_OK.rawValue,
            "libargon2 does not match the tag Argon2.rawHash made: \(encoded)")
    let reparsed: Argon2Hash
    do { reparsed = try Argon2Hash.parse(encoded) } catch {
        require(false, "encoding of a matching hash does not parse: \(encoded)")
        return
    }
    require(swiftVerify(reparsed, password: password), "Argon2.verify refuses its own matching tag: \(encoded)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArgon2Hash(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    guard let hash = try? Argon2Hash.parse(text) else { return 0 }

    require(text.utf8.count <= Argon2Hash.maximumEncodedLength, "longer than the maximum")
    require([16, 19].contains(hash.version), "version")
    require(hash.iterations >= 1, "t below 1")
    require(hash.parallelism >= 1 && hash.parallelism <= 0xFF_FFFF, "p out of range")
    require(UInt64(hash.memoryKiB) >= 8 * UInt64(hash.parallelism), "m below 8 per lane")
    require(Argon2Hash.saltLengths.contains(hash.salt.count), "salt length")
    require(Argon2Hash.hashLengths.contains(hash.hash.count), "tag length")

    let encoded = hash.encoded
    let again: Argon2Hash
    do { again = try Argon2Hash.parse(encoded) } catch {
        require(false, "encoding does not parse: \(encoded)")
        return 0
    }
    require(again == hash, "parse -> encode -> parse changed the value: \(text)")
    // Byte comparison: String == would also equate canonically equivalent text.
    var fields = encoded.utf8.split(separator: UInt8(ascii: "$"), omittingEmptySubsequences: false).map(Array.init)
    if hash.version == 16 { fields.remove(at: 2) }  // "v=16": the form without v= means the same
    let withoutVersion = Array(fields.joined(separator: [UInt8(ascii: "$")]))
    require(Array(text.utf8) == Array(encoded.utf8) || Array(text.utf8) == withoutVersion,
            "accepted a non-canonical string: \(text)")

    // The password: the input's last four bytes (the salt or tag end, whatever the fuzzer put there).
    checkAgainstLibargon2(text, hash, password: Array(bytes.suffix(4)))
    return 0
}

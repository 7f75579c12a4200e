// libFuzzer entry for JWT verification and the JSON parser under it. Built by scripts/fuzz together
// with Sources/JWT/*.swift into one module (AuthCrypto is compiled first as its own module); not part
// of the SwiftPM package.
//
// The first input byte picks a mode; the rest is its data.
//   0: the data is a compact token given to JWTKeySet.verify.
//   1: the data drives a generator of tokens: header members (alg none, lowercase, unknown, other
//      kinds of value; kids known, unknown, look-alike; typ; crit), claims (times around now and at
//      the extremes, wrong types, wrong iss/pur), how it is signed (the kid's key, another HMAC key,
//      HMAC keyed with the RSA public key, the other RSA key, garbage, a flipped bit, nothing), padded
//      or reordered segments; and JWTKeySet.sign of generated claims.
//   2: the data is JSON text for JSONValue.parse.
//
// Properties checked (a violation traps, which libFuzzer reports as a crash):
// 1. Nothing crashes.
// 2. verify accepts a token exactly when an independent model says it should: three segments of
//    canonical base64url (decoded here with Foundation), a header object without crit, string alg
//    equal to the algorithm of the key whose kid equals the header's kid byte for byte, typ absent
//    or JWT, a signature equal to the one the key set's key makes over the first two segments
//    (HMAC recomputed with the one-shot HMAC, RS256 re-signed: PKCS#1 v1.5 is deterministic), and
//    valid claims (exp, iat, nbf against now and the leeway; jti; iss; pur), under one of two policies
//    the input picks: a session (HS256 keys only, exp - iat at most 3600 s, no aud, no scope) or a capability
//    (RS256 keys only, exp - iat at most 120 s, aud exactly the string "api-service", scope exactly "jmap"). So no token
//    verifies unless one of the set's keys of the purpose's algorithm signed it, and alg none / wrong
//    alg / wrong kid / the other algorithm's key never verify.
// 3. On success the returned claims are the payload object.
// 4. JSON: parse -> serialize -> parse gives the same value and the same text again; whatever this
//    parser accepts, Foundation's JSONSerialization accepts too; serialized text is valid UTF-8.

import AuthCrypto
import Foundation
import JSON

/// Like `precondition`, but prints the message in optimized builds too, then traps for libFuzzer.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fputs("property violated: \(message())\n", stderr)
        abort()
    }
}

private let now: Int64 = 1_800_000_000
private let issuer = "https://postern.test"

/// The model's own table of the two policies (independent of JWTPurpose.algorithm): purpose, the only algorithm
/// accepted, the longest exp - iat, the audience (nil: no aud allowed) and the scope (nil: no scope allowed).
private struct ModelPolicy {
    let purpose: String
    let algorithm: JWTAlgorithm
    let lifetime: Int64
    let audience: String?
    let scope: String?

    var policy: JWTPolicy {
        JWTPolicy(
            purpose: JWTPurpose(rawValue: purpose)!, issuer: issuer, maximumLifetime: lifetime, audience: audience,
            scope: scope)
    }
}

private let sessionPolicy = ModelPolicy(
    purpose: "session", algorithm: .hs256, lifetime: 3600, audience: nil, scope: nil)
private let capabilityPolicy = ModelPolicy(
    purpose: "capability", algorithm: .rs256, lifetime: 120, audience: "api-service", scope: "jmap")

private let secretA = [UInt8](repeating: 0x41, count: 32)
private let secretB = Array(UInt8(0)..<UInt8(48))

// Fixed keys so that tokens in the corpus keep verifying from run to run. Test keys, never used elsewhere.
private let rsaA = loadKey(rsaPEMA)
private let rsaB = loadKey(rsaPEMB)

private func loadKey(_ pem: String) -> RSAPrivateKey {
    do { return try RSAPrivateKey(pem: pem) } catch { fatalError("fuzz RSA key: \(error)") }
}

/// kid -> how the key set's key with that kid signs. `rs-p` holds only rsaB's public key.
private enum Reference {
    case hmac([UInt8])
    case rsa(RSAPrivateKey)
}

private let references: [[UInt8]: (JWTAlgorithm, Reference)] = [
    Array("hs-a".utf8): (.hs256, .hmac(secretA)),
    Array("hsK-b".utf8): (.hs256, .hmac(secretB)),
    Array("rs-a".utf8): (.rs256, .rsa(rsaA)),
    Array("rs-p".utf8): (.rs256, .rsa(rsaB)),
]

private let keySet: JWTKeySet = {
    do {
        return try JWTKeySet(
            keys: [
                JWTKey.hmac(kid: "hs-a", secret: secretA), JWTKey.hmac(kid: "hsK-b", secret: secretB),
                JWTKey.rsa(kid: "rs-a", privateKey: rsaA), JWTKey.rsa(kid: "rs-p", publicKey: rsaB.publicKey),
            ],
            activeHMAC: "hs-a", activeRSA: "rs-a")
    } catch {
        fatalError("fuzz key set: \(error)")
    }
}()

/// RS256 signatures made so far, by key and signing input: re-signing costs a millisecond, and most
/// mutations of a token keep its signing input.
nonisolated(unsafe) private var rsaSignatures: [[UInt8]: [UInt8]] = [:]

private func referenceSignature(_ reference: Reference, _ input: [UInt8]) -> [UInt8] {
    switch reference {
    case .hmac(let secret):
        return HMACSHA256.authenticationCode(key: secret, message: input)
    case .rsa(let key):
        let cacheKey = input + [key === rsaA ? 1 : 2]
        if let signature = rsaSignatures[cacheKey] { return signature }
        let signature: [UInt8]
        do { signature = try key.signSHA256(input) } catch { fatalError("fuzz RSA signing: \(error)") }
        if rsaSignatures.count >= 4096 { rsaSignatures.removeAll(keepingCapacity: true) }
        rsaSignatures[cacheKey] = signature
        return signature
    }
}

// MARK: Model

/// Decodes base64url with Foundation; nil unless `text` is the one canonical unpadded encoding.
private func decodeBase64URL(_ text: ArraySlice<UInt8>) -> [UInt8]? {
    guard text.allSatisfy({ byte in
        (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte)
            || byte == 0x2d || byte == 0x5f
    })
    else { return nil }
    var standard = String(decoding: text, as: UTF8.self)
        .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.utf8.count % 4 != 0 { standard += "=" }
    guard let data = Data(base64Encoded: standard) else { return nil }
    let bytes = [UInt8](data)
    // Canonical: encoding the bytes again gives the same text (no stray bits in the last character).
    var again = data.base64EncodedString()
    while again.hasSuffix("=") { again.removeLast() }
    again = again.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    guard Array(again.utf8) == Array(text) else { return nil }
    return bytes
}

/// Whether `verify(token, policy:, now:, leeway:)` must succeed.
private func modelAccepts(_ token: [UInt8], _ policy: ModelPolicy, leeway requested: Int64) -> Bool {
    guard token.count <= JWTKeySet.maximumTokenLength else { return false }
    let segments = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty, !segments[2].isEmpty else { return false }
    guard segments[0].count <= 1024, let headerBytes = decodeBase64URL(segments[0]),
        case .object(let header)? = try? JSONValue.parse(headerBytes, limits: .init(maximumDepth: 4))
    else { return false }
    var alg: [UInt8]?
    var kid: [UInt8]?
    for (name, value) in header {
        switch Array(name.utf8) {
        case Array("crit".utf8): return false
        case Array("alg".utf8):
            guard case .string(let text) = value else { return false }
            alg = Array(text.utf8)
        case Array("kid".utf8):
            guard case .string(let text) = value else { return false }
            kid = Array(text.utf8)
        case Array("typ".utf8):
            guard case .string(let text) = value, text.utf8.elementsEqual("JWT".utf8) || text.utf8.elementsEqual("jwt".utf8)
            else { return false }
        default: continue
        }
    }
    guard let alg, let kid, let (algorithm, reference) = references[kid].map({ ($0.0, $0.1) }),
        Array(algorithm.rawValue.utf8) == alg, algorithm == policy.algorithm
    else { return false }
    let signingInput = Array(token[0..<(segments[0].count + 1 + segments[1].count)])
    // A signature of the wrong length cannot be the right one; skip re-signing for it.
    let expectedLength: Int
    switch reference {
    case .hmac: expectedLength = HMACSHA256.byteCount
    case .rsa(let key): expectedLength = key.signatureByteCount
    }
    guard let signature = decodeBase64URL(segments[2]), signature.count == expectedLength,
        signature == referenceSignature(reference, signingInput)
    else { return false }
    guard let payloadBytes = decodeBase64URL(segments[1]),
        case .object(let claims)? = try? JSONValue.parse(payloadBytes, limits: .init(maximumDepth: 8))
    else { return false }
    return claimsAreValid(claims, policy, leeway: requested)
}

private func claimsAreValid(_ claims: [(String, JSONValue)], _ policy: ModelPolicy, leeway requested: Int64) -> Bool {
    func claim(_ name: String) -> JSONValue? { claims.first { $0.0.utf8.elementsEqual(name.utf8) }?.1 }
    let leeway = Int(min(max(requested, 0), 30))
    // Compare in Int128-free arithmetic: Double is exact enough only near now, so widen by hand.
    func atMost(_ value: Int64, _ bound: Int64, plus extra: Int) -> Bool {  // value <= bound + extra
        let (sum, overflow) = bound.addingReportingOverflow(Int64(extra))
        return overflow ? true : value <= sum
    }
    guard case .int(let exp)? = claim("exp"), case .int(let iat)? = claim("iat") else { return false }
    // exp > now - leeway  <=>  !(exp <= now - leeway)
    let (earliest, underflow) = now.subtractingReportingOverflow(Int64(leeway))
    guard underflow || exp > earliest else { return false }
    guard atMost(iat, now, plus: leeway) else { return false }
    if let nbf = claim("nbf") {
        guard case .int(let value) = nbf, atMost(value, now, plus: leeway) else { return false }
    }
    // exp - iat <= lifetime, without overflow: an overflowing span is refused.
    let (span, spanOverflow) = exp.subtractingReportingOverflow(iat)
    guard !spanOverflow, span <= policy.lifetime else { return false }
    guard case .string? = claim("jti") else { return false }
    guard case .string(let iss)? = claim("iss"), iss.utf8.elementsEqual(issuer.utf8) else { return false }
    guard case .string(let pur)? = claim("pur"), pur.utf8.elementsEqual(policy.purpose.utf8) else { return false }
    switch (claim("aud"), policy.audience) {
    case (nil, nil): break
    case (.string(let aud)?, let expected?) where aud.utf8.elementsEqual(expected.utf8): break
    default: return false
    }
    switch (claim("scope"), policy.scope) {
    case (nil, nil): return true
    case (.string(let scope)?, let expected?): return scope.utf8.elementsEqual(expected.utf8)
    default: return false
    }
}

/// Runs verify and checks it against the model.
private func checkVerify(_ token: [UInt8], _ policy: ModelPolicy, leeway: Int64) {
    let text = String(decoding: token, as: UTF8.self)
    let bytes = Array(text.utf8)  // invalid UTF-8 was replaced: the model sees what verify sees
    let expected = modelAccepts(bytes, policy, leeway: leeway)
    do {
        let claims = try keySet.verify(text, policy: policy.policy, now: now, leeway: leeway)
        require(expected, "verify accepted a token the model refuses: \(text)")
        let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        let payload = decodeBase64URL(segments[1]).flatMap { try? JSONValue.parse($0) }
        require(payload == claims.json, "returned claims are not the payload: \(text)")
    } catch {
        require(!expected, "verify refused (\(error)) a token the model accepts: \(text)")
    }
}

// MARK: Generator

/// Reads choices from the input; zeros once it runs out.
private struct Choices {
    var bytes: ArraySlice<UInt8>

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
    mutating func pick<T>(_ options: [T]) -> T { options[Int(byte()) % options.count] }
    mutating func flag() -> Bool { byte() & 1 == 1 }
    /// A short string straight from the input (length-prefixed, invalid UTF-8 repaired).
    mutating func string() -> String {
        let count = Int(byte()) % 24
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return String(decoding: taken, as: UTF8.self)
    }
    mutating func int64() -> Int64 {
        var value: Int64 = 0
        for _ in 0..<8 { value = value << 8 | Int64(byte()) }
        return value
    }
}

private let kidOptions: [String] = ["hs-a", "hsK-b", "rs-a", "rs-p", "hs-c", "", "HS-A", "hs-a ", "hs\u{212A}-b", "rs-a\u{0}"]

private func headerValue(_ name: String, _ choices: inout Choices) -> JSONValue {
    switch choices.byte() % 4 {
    case 0:
        // A value of the wrong kind.
        return choices.pick([.int(1), .null, .array([]), .object([]), .bool(true), .string(choices.string())])
    default:
        switch name {
        case "alg":
            return .string(choices.pick(["HS256", "RS256", "none", "None", "hs256", "HS384", "RS512", "ES256", "", "PS256"]))
        case "kid": return .string(choices.pick(kidOptions))
        case "typ": return .string(choices.pick(["JWT", "jwt", "JOSE", "at+jwt", "Jwt"]))
        case "crit": return .array([.string(choices.pick(["exp", "b64", ""]))])
        default: return .string(choices.string())
        }
    }
}

private func generateHeader(_ choices: inout Choices) -> [(String, JSONValue)] {
    var members: [(String, JSONValue)] = []
    // Usually a well-formed header to start from, then edits.
    if choices.byte() % 4 != 0 {
        members = [("alg", .string(choices.pick(["HS256", "RS256"]))), ("kid", .string(choices.pick(kidOptions)))]
        if choices.flag() { members.append(("typ", "JWT")) }
    }
    for _ in 0..<(Int(choices.byte()) % 4) {
        let name = choices.pick(["alg", "kid", "typ", "crit", "jku", "x5u", "jwk", "", "Alg", choices.string()])
        let value = headerValue(name, &choices)
        switch choices.byte() % 3 {
        case 0: members.append((name, value))
        case 1: members.insert((name, value), at: 0)
        default:
            if let index = members.firstIndex(where: { $0.0 == name }) { members[index].1 = value } else {
                members.append((name, value))
            }
        }
    }
    return members
}

private func timeValue(_ choices: inout Choices) -> JSONValue {
    switch choices.byte() % 6 {
    case 0: return .int(now + Int64(Int8(bitPattern: choices.byte())))
    case 1: return .int(now + 3600 * Int64(Int8(bitPattern: choices.byte())))
    case 2: return .int(choices.pick([Int64.min, Int64.max, Int64.min + 1, Int64.max - 1, 0, -1]))
    case 3: return .int(choices.int64())
    case 4: return choices.pick([.double(Double(now)), .string(String(now)), .null, .double(Double(now) + 0.5)])
    default: return .int(now + 30 * Int64(Int8(bitPattern: choices.byte())) / 16)
    }
}

private func generateClaims(_ choices: inout Choices, _ policy: ModelPolicy) -> [(String, JSONValue)] {
    var members: [(String, JSONValue)] = []
    if choices.byte() % 4 != 0 {
        members = [("iss", .string(issuer)), ("iat", .int(now - 10)), ("exp", .int(now + 100)), ("jti", "j"),
                   ("pur", .string(policy.purpose))]
        if let audience = policy.audience { members.append(("aud", .string(audience))) }
        if let scope = policy.scope { members.append(("scope", .string(scope))) }
    }
    let purpose = policy.purpose
    for _ in 0..<(Int(choices.byte()) % 5) {
        let name = choices.pick(["iss", "iat", "exp", "nbf", "jti", "pur", "sub", "ISS", "aud", "scope", choices.string()])
        let value: JSONValue
        switch name {
        case "iat", "exp", "nbf": value = timeValue(&choices)
        case "iss": value = choices.pick([.string(issuer), .string(issuer + "/"), .string("HTTPS://postern.test"), .int(1), .null])
        case "pur": value = choices.pick([.string(purpose), "capability", "Session", "session ", .array([.string(purpose)])])
        case "jti": value = choices.pick(["x", .int(7), .null, .string(choices.string())])
        case "aud":
            value = choices.pick([
                "api-service", ["api-service"], ["api-service", "other"], "other", "api-service ", .array([]), .int(1),
            ])
        case "scope": value = choices.pick(["jmap", "JMAP", "jmap ", ["jmap"], .int(1), .null])
        default: value = .string(choices.string())
        }
        switch choices.byte() % 3 {
        case 0: members.append((name, value))
        case 1: members.removeAll { $0.0 == name }
        default:
            if let index = members.firstIndex(where: { $0.0 == name }) { members[index].1 = value } else {
                members.append((name, value))
            }
        }
    }
    return members
}

private func encode(_ bytes: [UInt8]) -> [UInt8] { Array(Base64URL.encode(bytes).utf8) }

private func forge(_ choices: inout Choices, _ policy: ModelPolicy) -> [UInt8] {
    let header = JSONValue.object(generateHeader(&choices)).serialize()
    var payload = JSONValue.object(generateClaims(&choices, policy)).serialize()
    if choices.byte() % 8 == 0 { payload = Array(choices.string().utf8) }  // not an object, or not JSON
    var headerText = encode(header)
    if choices.byte() % 16 == 0 { headerText += Array("=".utf8) }
    let signingInput = headerText + [UInt8(ascii: ".")] + encode(payload)
    // The key the header's kid names, if it names one: the honest signer.
    let named = (try? JSONValue.parse(header))?["kid"]?.stringValue.map { Array($0.utf8) } ?? []
    let honest = references[named].map { referenceSignature($0.1, signingInput) }
    let signature: [UInt8]
    switch choices.byte() % 10 {
    case 0, 1, 2:
        signature = honest ?? []
    case 3: signature = HMACSHA256.authenticationCode(key: secretA, message: signingInput)
    case 4: signature = HMACSHA256.authenticationCode(key: secretB, message: signingInput)
    case 5:
        // Algorithm confusion: the RSA public key (as PEM text, or its modulus) used as an HMAC secret.
        let key = choices.flag() ? Array(rsaA.publicKey.pem.utf8) : rsaA.publicKey.modulus
        signature = HMACSHA256.authenticationCode(key: key, message: signingInput)
    case 6: signature = referenceSignature(.rsa(choices.flag() ? rsaA : rsaB), signingInput)
    case 7:
        var flipped = honest ?? secretA
        let index = Int(choices.byte()) % flipped.count
        flipped[index] ^= 1 << (choices.byte() % 8)
        signature = flipped
    case 8: signature = Array(choices.string().utf8)
    default: signature = []
    }
    var token = signingInput + [UInt8(ascii: ".")] + encode(signature)
    switch choices.byte() % 16 {
    case 0: token += Array(".".utf8)
    case 1: token += Array("=".utf8)
    case 2: token = Array(token.dropLast())
    default: break
    }
    return token
}

/// Signs generated claims with the key set itself; verify must agree with the model on the result.
private func signAndVerify(_ choices: inout Choices, _ policy: ModelPolicy, leeway: Int64) {
    let claims = JWTClaims(generateClaims(&choices, policy))
    // Mostly the policy's own algorithm; sometimes the other one, which must always be refused.
    let other: JWTAlgorithm = policy.algorithm == .hs256 ? .rs256 : .hs256
    let algorithm = choices.byte() % 4 == 0 ? other : policy.algorithm
    do {
        let token = try keySet.sign(claims, algorithm: algorithm)
        checkVerify(Array(token.utf8), policy, leeway: leeway)
        let accepted = (try? keySet.verify(token, policy: policy.policy, now: now, leeway: leeway)) != nil
        require(
            accepted == (algorithm == policy.algorithm && claimsAreValid(claims.members, policy, leeway: leeway)),
            "a signed token's verdict differs from its claims' and algorithm's")
    } catch {
        require(false, "sign failed: \(error)")
    }
}

// MARK: JSON

private func checkJSON(_ bytes: [UInt8]) {
    for depth in [4, 16] {
        guard let value = try? JSONValue.parse(bytes, limits: .init(maximumDepth: depth)) else { continue }
        let text = value.serialize()
        require(String(validating: text, as: UTF8.self) != nil, "serialized JSON is not UTF-8")
        let again: JSONValue
        do {
            again = try JSONValue.parse(text, limits: .init(maximumDepth: depth))
        } catch {
            require(false, "serialized JSON does not parse (\(error)): \(String(decoding: text, as: UTF8.self))")
            return
        }
        require(again == value, "JSON round trip changed the value: \(String(decoding: text, as: UTF8.self))")
        require(again.serialize() == text, "JSON serialization is not stable")
        if depth == 16 {
            let foundation = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            require(foundation != nil, "JSONSerialization refuses JSON this parser accepts: \(String(decoding: bytes, as: UTF8.self))")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let mode = input[0] % 3
    let rest = Array(input[1...])
    switch mode {
    case 0:
        let leeway = Int64(input[0] / 3 % 40) - 4
        checkVerify(rest, input[0] / 3 % 2 == 0 ? sessionPolicy : capabilityPolicy, leeway: leeway)
        // The decoded segments feed the JSON checks too.
        for segment in rest.split(separator: UInt8(ascii: "."), maxSplits: 3) {
            if let decoded = Base64URL.decode(String(decoding: segment, as: UTF8.self)) { checkJSON(decoded) }
        }
    case 1:
        var choices = Choices(bytes: rest[...])
        let leeway = Int64(choices.byte() % 40) - 4
        let policy = choices.flag() ? capabilityPolicy : sessionPolicy
        if choices.byte() % 8 == 0 {
            signAndVerify(&choices, policy, leeway: leeway)
        } else {
            checkVerify(forge(&choices, policy), policy, leeway: leeway)
        }
    default:
        checkJSON(rest)
    }
    return 0
}

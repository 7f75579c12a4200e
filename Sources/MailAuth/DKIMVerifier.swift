import Base64Coding
import AuthCrypto
import Foundation

/// DKIM verification (RFC 6376 section 6) of every `DKIM-Signature` of a message: RSA-SHA256 (RFC 8301: rsa-sha1
/// is refused) and Ed25519-SHA256 (RFC 8463), relaxed and simple canonicalization, keys from DNS TXT at
/// `<s>._domainkey.<d>`. `l=` is honoured as RFC 6376 says (the body hash covers that many bytes), and reported.
public struct DKIMVerifier: Sendable {
    /// One signature's verdict.
    public struct Outcome: Sendable, Equatable {
        public var result: AuthResult
        /// The signing domain (`d=`), lower-cased; empty when the signature could not be read.
        public var domain: String
        /// The selector (`s=`).
        public var selector: String
        /// Why it did not pass, for people (never key material).
        public var reason: String?
    }

    let dns: any MailAuthDNS
    /// Unix seconds now, for `x=` (expiry).
    let now: @Sendable () -> Int64

    /// Verifies with keys looked up through `dns`.
    public init(dns: any MailAuthDNS, now: @escaping @Sendable () -> Int64) {
        self.dns = dns
        self.now = now
    }

    /// Every signature of `message`, top to bottom; empty when it has none.
    public func verify(_ message: [UInt8]) async -> [Outcome] {
        await verify(MessageHeaders(message))
    }

    /// Every signature of the message `headers` were read from, top to bottom.
    func verify(_ headers: MessageHeaders) async -> [Outcome] {
        var outcomes: [Outcome] = []
        for signature in headers.fields(named: "DKIM-Signature").prefix(5) {
            outcomes.append(await verify(signature, in: headers))
        }
        return outcomes
    }

    private func verify(_ field: MessageHeaders.Field, in headers: MessageHeaders) async -> Outcome {
        func outcome(_ result: AuthResult, _ domain: String = "", _ selector: String = "", _ reason: String) -> Outcome
        {
            Outcome(result: result, domain: domain, selector: selector, reason: reason)
        }
        guard let tags = DKIMTagList(MessageHeaders.value(of: field)) else {
            return outcome(.permerror, "", "", "malformed tag list")
        }
        guard tags["v"] == "1", let domain = tags["d"]?.lowercased(), let selector = tags["s"],
            let signedNames = tags.compact("h"), let bodyHash = tags.compact("bh").flatMap(Base64.decode),
            let signature = tags.compact("b").flatMap(Base64.decode), !signature.isEmpty
        else {
            return outcome(.permerror, tags["d"]?.lowercased() ?? "", tags["s"] ?? "", "missing or bad required tag")
        }
        let names = signedNames.split(separator: ":").map { $0.lowercased() }
        guard names.contains("from") else { return outcome(.permerror, domain, selector, "h= does not sign From") }
        let algorithm = tags["a"] ?? ""
        guard algorithm == "rsa-sha256" || algorithm == "ed25519-sha256" else {
            return outcome(.permerror, domain, selector, "unsupported algorithm \(algorithm)")
        }
        let modes = (tags["c"] ?? "simple/simple").split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(modes.count), let headerMode = DKIMCanonicalization(rawValue: String(modes[0])),
            let bodyMode = DKIMCanonicalization(rawValue: modes.count == 2 ? String(modes[1]) : "simple")
        else { return outcome(.permerror, domain, selector, "unknown canonicalization") }
        if let expiry = tags["x"].flatMap({ Int64($0) }), expiry < now() {
            return outcome(.fail, domain, selector, "signature expired")
        }

        // The body hash.
        var body = bodyMode.body(headers.body)
        if let limitText = tags["l"] {
            guard let limit = Int(limitText), limit >= 0, limit <= body.count else {
                return outcome(.permerror, domain, selector, "l= is longer than the body")
            }
            body = Array(body.prefix(limit))
        }
        guard constantTimeEquals(SHA256.hash(body), Array(bodyHash)) else {
            return outcome(.fail, domain, selector, "body hash did not verify")
        }

        let input = DKIMHeaderHash.input(
            names: names, headers: headers, signatureField: Self.withoutSignatureValue(field.raw), mode: headerMode)

        // The key.
        let keyName = "\(selector)._domainkey.\(domain)"
        let records: [String]
        switch await dns.txt(keyName) {
        case .found(let found): records = found
        case .noSuchName: return outcome(.permerror, domain, selector, "no key at \(keyName)")
        case .failed: return outcome(.temperror, domain, selector, "key lookup failed")
        }
        guard let key = records.lazy.compactMap(DKIMTagList.init).first(where: { $0["p"] != nil }) else {
            return outcome(.permerror, domain, selector, "no key record at \(keyName)")
        }
        guard let publicKey = key.compact("p"), !publicKey.isEmpty, let keyBytes = Base64.decode(publicKey)
        else { return outcome(.fail, domain, selector, "key revoked or unreadable") }
        let keyType = key["k"] ?? "rsa"
        let verified: Bool
        switch (algorithm, keyType) {
        case ("rsa-sha256", "rsa"):
            let pem =
                "-----BEGIN PUBLIC KEY-----\n" + Base64.encode(keyBytes, lineLength: 64)
                + "\n-----END PUBLIC KEY-----\n"
            guard let rsa = try? RSAPublicKey(pem: pem) else {
                return outcome(.permerror, domain, selector, "RSA key unreadable or under 2048 bits")
            }
            verified = rsa.verifySHA256(signature: Array(signature), message: input)
        case ("ed25519-sha256", "ed25519"):
            guard let ed = try? Ed25519PublicKey(rawRepresentation: Array(keyBytes)) else {
                return outcome(.permerror, domain, selector, "Ed25519 key unreadable")
            }
            verified = ed.verify(signature: Array(signature), message: SHA256.hash(input))
        default:
            return outcome(.permerror, domain, selector, "key type \(keyType) does not match \(algorithm)")
        }
        return verified
            ? Outcome(result: .pass, domain: domain, selector: selector, reason: tags["l"] == nil ? nil : "l= limited")
            : outcome(.fail, domain, selector, "signature did not verify")
    }

    /// The DKIM-Signature field with its `b=` value removed, everything else (whitespace included) kept.
    static func withoutSignatureValue(_ raw: [UInt8]) -> [UInt8] {
        guard let colon = raw.firstIndex(of: UInt8(ascii: ":")) else { return raw }
        var out = Array(raw[...colon])
        var index = colon + 1
        while index < raw.count {
            let end = raw[index...].firstIndex(of: UInt8(ascii: ";")) ?? raw.count
            let tag = raw[index..<end]
            let name = tag.prefix { $0 != UInt8(ascii: "=") }.filter {
                !CharacterSetWhitespace.contains(Unicode.Scalar($0))
            }
            if name == Array("b".utf8), let equals = tag.firstIndex(of: UInt8(ascii: "=")) {
                out += raw[index...equals]
            } else {
                out += tag
            }
            if end < raw.count { out.append(UInt8(ascii: ";")) }
            index = end + 1
        }
        return out
    }
}

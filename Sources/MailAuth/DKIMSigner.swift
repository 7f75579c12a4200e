import Base64Coding
import AuthCrypto
import Foundation

/// DKIM signing (RFC 6376, and Ed25519 per RFC 8463): for each of a domain's keys, the `DKIM-Signature` field to put
/// on top of an outbound message. Relaxed/relaxed canonicalization (the same code the verifier uses), `t=` from the
/// injected clock, no `l=` and no `x=`. The signed fields are those of ``signedFieldNames`` the message has (every
/// instance), and `From` once more than present (oversigned: a `From` added on the way breaks the signature).
public struct DKIMSigner: Sendable {
    /// The fields signed when present, in `h=` order.
    public static let signedFieldNames = [
        "from", "to", "cc", "subject", "date", "message-id", "mime-version", "content-type", "reply-to",
        "in-reply-to", "references",
    ]
    /// The longest line the signature fields are folded to (RFC 5322's recommended 78 characters).
    static let lineLength = 78

    /// The signing domain (`d=`), lower-case.
    public let domain: String
    /// The keys, one signature each, in the order the fields are returned.
    public let keys: [DKIMSigningKey]
    private let now: @Sendable () -> Int64

    /// Signs for `domain` with `keys`; `now` gives Unix seconds for `t=`.
    public init(domain: String, keys: [DKIMSigningKey], now: @escaping @Sendable () -> Int64) {
        self.domain = domain.lowercased()
        self.keys = keys
        self.now = now
    }

    /// The `DKIM-Signature` fields for `message` (header and body, CRLF line ends), one per key, each folded and
    /// ending with CRLF: to be prepended to the message as they are.
    /// - Throws: `CryptoError` `.signingFailed`.
    public func signatureFields(for message: [UInt8]) throws(CryptoError) -> String {
        let headers = MessageHeaders(message)
        let bodyHash = Base64.encode(SHA256.hash(DKIMCanonicalization.relaxed.body(headers.body)))
        var names: [String] = []
        for name in Self.signedFieldNames {
            names += Array(repeating: name, count: headers.fields(named: name).count)
        }
        names.append("from")
        let time = now()
        var fields = ""
        for key in keys {
            let tags = [
                "v=1", "a=\(key.algorithm.rawValue)", "c=relaxed/relaxed", "d=\(domain)", "s=\(key.selector)",
                "t=\(time)", "h=" + names.joined(separator: ":"), "bh=\(bodyHash)",
            ]
            let unsigned = Self.fold(tags)
            let signature = try Self.signature(
                headers: headers, names: names, unsignedField: Array(unsigned.utf8), key: key)
            fields += unsigned + Self.foldValue(Base64.encode(signature), column: 3) + "\r\n"
        }
        return fields
    }

    /// `message` with ``signatureFields(for:)`` on top.
    public func signed(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        Array(try signatureFields(for: message).utf8) + message
    }

    /// The signature of the message `headers` were read from, by `key`, for the DKIM-Signature field
    /// `unsignedField` (whole, folding included, ending in `b=` with no value) signing the fields `names`.
    static func signature(
        headers: MessageHeaders, names: [String], unsignedField: [UInt8], key: DKIMSigningKey
    ) throws(CryptoError) -> [UInt8] {
        let input = DKIMHeaderHash.input(
            names: names, headers: headers, signatureField: unsignedField, mode: .relaxed)
        return try key.sign(input)
    }

    /// `DKIM-Signature:` and the tags joined by `; `, a line broken before a tag that would pass ``lineLength``
    /// (and inside `h=` after a colon), ending with `b=` on a line of its own.
    static func fold(_ tags: [String]) -> String {
        var text = "DKIM-Signature:"
        var column = text.count
        // Each piece goes after a space, or at the start of a new line when it would not fit.
        func put(_ piece: String, spaced: Bool) {
            if column + piece.count + 1 > lineLength {
                text += "\r\n "
                column = 1
            } else if spaced {
                text += " "
                column += 1
            }
            text += piece
            column += piece.count
        }
        for tag in tags {
            guard tag.hasPrefix("h=") else {
                put(tag + ";", spaced: true)
                continue
            }
            let parts = tag.split(separator: ":")
            for (index, name) in parts.enumerated() {
                put(String(name) + (index == parts.count - 1 ? ";" : ":"), spaced: index == 0)
            }
        }
        return text + "\r\n b="
    }

    /// A base64 value broken into lines that fit ``lineLength`` (FWS is allowed inside `b=`), the first starting at
    /// `column`.
    static func foldValue(_ value: String, column: Int) -> String {
        var lines: [Substring] = []
        var rest = Substring(value)
        var room = lineLength - column
        while !rest.isEmpty {
            lines.append(rest.prefix(room))
            rest = rest.dropFirst(room)
            room = lineLength - 1
        }
        return lines.joined(separator: "\r\n ")
    }
}
